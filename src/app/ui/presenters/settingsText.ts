// The words of the Settings window: how each agent card and live-status card reads, the banner
// for problems in settings.json, the line after a hook install or removal, and the fixed labels
// of every page. Pure: settingsWindow.ts lays these out in Qt; the app passes catalog entries in.
import { shortenHome } from '../../../protocol/homePath';
import type { CatalogEntry } from '../../services/catalog';
import type { AgentHookResult } from '../../services/hookInstaller';
import { unavailableNote } from '../../services/programIdentity';
import { verifiedNote } from '../../../protocol/verified';

export interface SettingsAgent {
  id: string;
  name: string;
  /** "bundled", or the user file that defines or overrides it. */
  source: string;
  /** Why it cannot start, or null when it can: "not installed", "another program named grok"
   *  (unavailableNote, as the picker and the tray say it). */
  unavailable: string | null;
  /** Bundled agents: "verified on 0.24.3, 0.24.4" or "not verified here" (the release matrix's runs). */
  verified?: string;
  installUrl?: string;
  hasBypass: boolean;
  warnings: string[];
  errors: string[];
  /** Declared hooks: where they go and whether ours are there now. */
  hooks?: { file: string; state: string; events: string[]; note?: string };
}

/** Fixed labels, page by page. */
export const settingsLabels = {
  windowTitle: 'Termio Settings',
  tabs: ['Agents', 'Live status', 'Notifications', 'Sessions', 'Appearance', 'Shortcuts', 'Phone', 'Machines'],
  agentsIntro:
    'Agents come from the manifests bundled with Termio and from ~/.termio/config/agents, in picker order (▲ ▼ move one). Disabled agents are hidden from the picker and the tray.',
  enabled: 'Enabled',
  bypass: 'Skip permission prompts (bypass flag)',
  moveUp: { text: '▲', tip: 'Earlier in the picker' },
  moveDown: { text: '▼', tip: 'Later in the picker' },
  hooksIntro:
    'Live agent status: Termio adds one small hook entry per event to each agent’s own configuration, so the agent reports working / needs you / done the moment it happens. Your own entries are never touched; a backup is kept before the first edit; uninstall removes exactly ours.',
  notifyAttention: 'When an agent needs you (unless you are looking at it)',
  notifyDone: 'When an agent finishes a long turn while you are elsewhere',
  longTurn: 'A turn is long after',
  notifyTerminal: 'Notifications that programs send (OSC 9 / OSC 777)',
  sound: 'Play a sound',
  onQuit: 'When Termio quits',
  onQuitChoices: [
    { value: 'keep', text: 'Keep sessions running' },
    { value: 'end', text: 'End all sessions' },
  ],
  stall: 'Mark as stalled after',
  needsYouFirst: 'Sidebar: sessions that need you first, longest waiting on top',
  sessionsNote:
    'Sessions run in Termio’s session host, apart from the window: quitting with “Keep sessions running” leaves every agent working, and the next start shows each tab as it is. The tray’s “Quit and End All Sessions” ends them either way; the next start resumes each one. A session working with no output and no hook report for the time above is marked stalled.',
  font: 'Font',
  theme: 'Theme',
  cursor: 'Cursor',
  cursorBlink: 'Blinking cursor',
  scrollback: 'Scrollback lines',
  optionAsMeta: 'Use Option as Meta',
  appearanceNote:
    'Theme “system” follows your OS’s light or dark appearance; dark and light keep one. Font, theme and cursor apply to open windows and terminals at once; scrollback applies to new sessions.',
  shortcutsIntro: 'Key sequences in Qt’s notation (Ctrl is ⌘ on macOS). Empty restores the default.',
  globalKeysTitle: 'Global keys — they work while another application has the focus. Empty turns one off.',
  globalKeyNames: { nextWaiting: 'Jump to the session that needs you', picker: 'Agent picker in the front window' },
} as const;

export type SettingsTab = (typeof settingsLabels.tabs)[number];

/** A catalog entry as its Settings card shows it; `hooks` is its hook status when it declares hooks. */
export function settingsAgent(e: CatalogEntry, hooks: AgentHookResult | null, home: string): SettingsAgent {
  const verified = verifiedNote(e.verified);
  return {
    id: e.id,
    name: e.manifest.name,
    source: e.source === 'bundled' ? 'bundled with Termio' : `${e.label}${e.overrides ? ' (overrides the bundled one)' : ''}`,
    unavailable: unavailableNote(e),
    verified: verified || undefined,
    installUrl: e.manifest.install || undefined,
    hasBypass: Boolean(e.manifest.permissionBypassFlag),
    warnings: e.warnings,
    errors: e.errors,
    ...(hooks && e.manifest.hooks
      ? {
          hooks: {
            file: shortenHome(hooks.file, home),
            state: hooks.state,
            events: e.manifest.hooks.events.map((x) => x.on),
            note: hooks.note || undefined,
          },
        }
      : {}),
  };
}

/** An agent card: its heading, the line under it, and its problems (errors first). */
export function agentCardText(a: SettingsAgent): { heading: string; detail: string; problems: string[] } {
  return {
    heading: `${a.name}   · ${a.unavailable ?? 'installed'}`,
    detail: `${a.id} — ${a.source}${a.verified ? ` — ${a.verified}` : ''}${a.unavailable !== null && a.installUrl ? ` — install: ${a.installUrl}` : ''}`,
    problems: [...a.errors.map((e) => `✕ ${e}`), ...a.warnings.map((w) => `⚠ ${w}`)],
  };
}

/** A live-status card: heading, where it writes, and the button that flips it. */
export function hookCardText(name: string, h: NonNullable<SettingsAgent['hooks']>): { heading: string; detail: string; button: string; installed: boolean } {
  const state =
    h.state === 'installed' ? 'reporting live status' : h.state === 'partial' ? 'partly installed' : h.state === 'absent' ? 'not installed' : h.state;
  const installed = h.state === 'installed';
  return { heading: `${name} — ${state}`, detail: `Writes to ${h.file}: ${h.events.join(', ')}`, button: installed ? 'Uninstall' : 'Install', installed };
}

/** The line shown after Install or Uninstall; `r` is null when the agent declares no hooks. */
export function hooksChangedText(name: string, on: boolean, r: AgentHookResult | null, home: string): string {
  if (!r) return `${name} declares no hooks.`;
  if (r.error) return r.error;
  return `${name}: ${on ? 'live status on' : 'live status off'} (${shortenHome(r.file, home)}${r.backup ? `; backup at ${shortenHome(r.backup, home)}` : ''})`;
}

/** The banner over the tabs, or '' when settings.json has no problems; `file` as messages name it. */
export function settingsProblemsText(errors: string[], file: string): string {
  // Each error starts with the file's name, which the banner's first line already says.
  const lines = errors.map((e) => (e.startsWith(`${file}: `) ? e.slice(file.length + 2) : e));
  return errors.length ? `Some settings in ${file} could not be used; every other setting is in effect:\n${lines.join('\n')}` : '';
}

/** A shortcut action's name as a label: "jumpToSession" → "Jump To Session". */
export function shortcutLabel(action: string): string {
  return action.replace(/([A-Z])/g, ' $1').replace(/^./, (c) => c.toUpperCase());
}

/** What Settings says beside a global key: that it works, or why it does not. */
export function globalKeyStatusText(s: { state: 'off' | 'pending' | 'on' | 'taken' | 'invalid' | 'unavailable'; message: string }): string {
  if (s.state === 'on') return '✓ active';
  if (s.state === 'off') return 'off';
  if (s.state === 'pending') return '…';
  return s.message;
}
