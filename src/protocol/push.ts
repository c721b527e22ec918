// Web Push for the companion page: what a paired page registers (its browser's PushSubscription,
// tied to a device id the page keeps), what the host keeps of each device, what a push carries to
// the page's service worker, and the answer a notification's action sends back. Pure types and
// zod schemas; the page and its service worker import the types and the payload's parser.
import * as z from 'zod';

/** The payload's version: a service worker meets payloads from a host newer or older than it. */
export const PUSH_PAYLOAD_VERSION = 1;
/** At most this many choices become a notification's actions: browsers show two or three. */
export const MAX_PUSH_ACTIONS = 3;

const base64url = z.string().regex(/^[A-Za-z0-9_-]+=*$/, 'expected base64url');

/** The browser's `PushSubscription.toJSON()`: where to send, and the keys to encrypt for. */
export const PushSubscriptionSchema = z.object({
  endpoint: z.url({ protocol: /^https$/, error: 'the endpoint must be an https URL' }).max(2048),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({ p256dh: base64url.max(200), auth: base64url.max(100) }),
});
export type PushSubscriptionJson = z.infer<typeof PushSubscriptionSchema>;

/** A device id: made by the page once and kept in its storage. */
export const DeviceIdSchema = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'a device id is 8 to 64 letters, digits, - or _');

/** What a device may be told besides a session that needs it; both off unless it asks. */
export const PushOptionsSchema = z.object({ done: z.boolean().default(false), failed: z.boolean().default(false) });
export type PushOptions = z.infer<typeof PushOptionsSchema>;

/** `POST /api/push/subscriptions`: this device's subscription (one per device: a second replaces it). */
export const PushRegisterSchema = z.strictObject({
  device: DeviceIdSchema,
  name: z.string().trim().min(1).max(80),
  subscription: PushSubscriptionSchema,
  options: PushOptionsSchema.optional(),
});
export type PushRegister = z.infer<typeof PushRegisterSchema>;

/** `DELETE /api/push/subscriptions`: this device's subscription goes. */
export const PushUnregisterSchema = z.strictObject({ device: DeviceIdSchema });

/** `POST /api/push/answer`: a notification's action. The token is the authority (no pairing token). */
export const PushAnswerSchema = z.strictObject({
  token: z.string().min(1).max(100),
  choice: z
    .number()
    .int()
    .min(0)
    .max(MAX_PUSH_ACTIONS - 1),
});
export type PushAnswer = z.infer<typeof PushAnswerSchema>;

/** Why a push answer sent nothing (409): the token's own reasons, then the question book's. */
export type PushAnswerRefusal =
  'unknownToken' | 'tokenUsed' | 'questionGone' | 'noQuestion' | 'questionChanged' | 'noSuchChoice' | 'alreadyAnswered' | 'sessionExited' | 'noSuchSession';

/** How the last push to a device went. */
export const PushResultSchema = z.object({
  at: z.number(),
  /** sent: the push service took it (201); failed: it refused or could not be reached; waiting:
   *  backing off after 429/5xx until `retryAt`. */
  outcome: z.enum(['sent', 'failed', 'waiting']),
  status: z.number().int().nullable(),
  message: z.string().optional(),
  retryAt: z.number().optional(),
});
export type PushResult = z.infer<typeof PushResultSchema>;

/** One device as the host keeps it (push-subscriptions.json). */
export const PushDeviceSchema = z.strictObject({
  id: DeviceIdSchema,
  name: z.string().max(80),
  createdAt: z.number(),
  subscription: PushSubscriptionSchema,
  options: PushOptionsSchema,
  last: PushResultSchema.nullable(),
});
export type PushDevice = z.infer<typeof PushDeviceSchema>;

export const PushDevicesFileSchema = z.strictObject({ version: z.literal(1), devices: z.array(PushDeviceSchema) });

/** A device as `termio companion devices` and Settings → Phone list it (no keys, no endpoint path). */
export interface PushDeviceInfo {
  id: string;
  name: string;
  createdAt: number;
  /** The push service's host (fcm.googleapis.com, web.push.apple.com, …): whose service it uses. */
  service: string;
  options: PushOptions;
  last: PushResult | null;
}

/** What a push carries to the service worker (encrypted end to end to the device). */
export const PushPayloadSchema = z.object({
  v: z.literal(PUSH_PAYLOAD_VERSION),
  kind: z.enum(['attention', 'done', 'failed']),
  session: z.string().min(1).max(100),
  /** The page's address of the session, relative to the page (`/#s=<id>`). */
  url: z.string().startsWith('/'),
  agent: z.string().max(200),
  folder: z.string().max(500),
  /** attention: what it asks, its first choices (the actions), and the token that answers it. */
  question: z
    .object({
      text: z.string().max(1000),
      choices: z.array(z.string().max(200)).max(MAX_PUSH_ACTIONS),
      token: z.string().max(100),
    })
    .nullable(),
  /** failed: the reason the agent gave. */
  failure: z.string().max(500).optional(),
  sentAt: z.number(),
});
export type PushPayload = z.infer<typeof PushPayloadSchema>;
