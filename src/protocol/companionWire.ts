// The companion's wire constants, apart from its zod schemas so the browser page can import
// them without bundling zod.

/** Close codes the page tells apart: the token was revoked (pair again), or the host stops. */
export const CLOSE_REVOKED = 4401;
export const CLOSE_HOST_STOPPING = 4503;
/** The WebSocket subprotocol the page speaks; the token rides in a second one, `auth.<token>`,
 *  so it is never part of a URL a proxy or a log could keep. */
export const COMPANION_SUBPROTOCOL = 'termio.v1';
export const AUTH_SUBPROTOCOL_PREFIX = 'auth.';
