// The colour of each session state, per appearance: the one palette behind the sidebar's dots,
// the tray menu's dots and the menu-bar icon, so "working" is the same blue everywhere.
import type { SessionState } from '../../protocol/status/sessionState';

export type StatePalette = Readonly<Record<SessionState, string>>;

/** On dark backgrounds. Idle is a grey that still reads on the dark menu bar (≥ 4.5:1 on #20242d). */
export const darkStateColors: StatePalette = { attention: '#ff9f43', working: '#6cb6ff', done: '#57d9a3', idle: '#8a93a6' };
/** On light backgrounds: darker shades of the same hues, each ≥ 3:1 against white. */
export const lightStateColors: StatePalette = { attention: '#c46210', working: '#2a74d4', done: '#1a8a5e', idle: '#7b8396' };

/** A session that stopped on a failure (attention with a failure reason): red, apart from the
 *  orange of "needs you" and never the green of done. */
export const darkFailedColor = '#ff5c5c';
export const lightFailedColor = '#cc2f2f';
