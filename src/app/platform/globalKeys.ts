// System-wide keys: "jump to the session that needs you" and "the agent picker", working while
// another application has the focus. The native helper (native/termio-hotkeys: an X11 passive
// grab, or Carbon's RegisterEventHotKey on macOS) holds the keys and says when one is pressed;
// this side chooses the backend, turns the settings' key sequences (Qt's notation, as in
// Settings → Shortcuts) into what the helper grabs, and keeps each key's status for Settings.
// Wayland lets no application read keys meant for another, so there it is a note only.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Emitter } from '../../protocol/events';
import { installPath } from '../services/install';
import type { Logger } from '../services/log';

export const GLOBAL_KEY_ACTIONS = ['nextWaiting', 'picker'] as const;
export type GlobalKeyAction = (typeof GLOBAL_KEY_ACTIONS)[number];

export type GlobalKeysBackend = { kind: 'x11' | 'carbon'; helper: string } | { kind: 'unavailable'; why: string };

export const HOTKEY_HELPER = installPath('native', 'termio-hotkeys', 'build', 'termio-hotkeys');

/** Which backend serves global keys here; `helper` is the built helper, or null when set-up could not build it. */
export function chooseGlobalKeysBackend(o: {
  platform: NodeJS.Platform;
  env: { DISPLAY?: string; WAYLAND_DISPLAY?: string; XDG_SESSION_TYPE?: string };
  helper: string | null;
}): GlobalKeysBackend {
  const notBuilt = (compiler: string) => `the global-key helper was not built (set-up needs ${compiler}; run npm start again once it is there)`;
  if (o.platform === 'darwin') return o.helper ? { kind: 'carbon', helper: o.helper } : { kind: 'unavailable', why: notBuilt("Xcode's command line tools") };
  if (o.platform !== 'linux') return { kind: 'unavailable', why: `global keys are not supported on ${o.platform}` };
  // Under Wayland an X grab would only see keys while an X window has the focus: not global.
  if (o.env.WAYLAND_DISPLAY || o.env.XDG_SESSION_TYPE === 'wayland')
    return {
      kind: 'unavailable',
      why: 'global keys are unavailable on Wayland, which lets no application read keys meant for another: bind `termio sessions next --focus` to a key in your desktop’s keyboard settings instead',
    };
  if (!o.env.DISPLAY) return { kind: 'unavailable', why: 'global keys need an X display, and DISPLAY is not set' };
  return o.helper ? { kind: 'x11', helper: o.helper } : { kind: 'unavailable', why: notBuilt('a C compiler and libx11-dev') };
}

/** What the helper grabs: modifiers and key in the backend's terms. */
export interface HelperKey {
  mods: number;
  key: string;
}

export type ParsedKey = { ok: true; x11: HelperKey; carbon: HelperKey } | { ok: false; message: string };

// Qt's names: on macOS Ctrl is ⌘ and Meta is ⌃; elsewhere Meta is the Super (Windows) key.
const X11_MODS: Record<string, number> = { Shift: 1, Ctrl: 4, Alt: 8, Meta: 64 };
const CARBON_MODS: Record<string, number> = { Ctrl: 256, Shift: 512, Alt: 2048, Meta: 4096 };
/** macOS virtual key codes (Events.h kVK_*) of the keys a global shortcut may end with. */
const MAC_CODES: Record<string, number> = {
  ...Object.fromEntries([...'ASDFHGZXCV'].map((c, i) => [c, i])),
  ...Object.fromEntries([...'BQWERYT'].map((c, i) => [c, 11 + i])),
  ...{ '1': 18, '2': 19, '3': 20, '4': 21, '6': 22, '5': 23, '9': 25, '7': 26, '8': 28, '0': 29 },
  ...{ O: 31, U: 32, I: 34, P: 35, L: 37, J: 38, K: 40, N: 45, M: 46 },
  ...{ Space: 49, Return: 36, Tab: 48, Escape: 53 },
  ...{ F1: 122, F2: 120, F3: 99, F4: 118, F5: 96, F6: 97, F7: 98, F8: 100, F9: 101, F10: 109, F11: 103, F12: 111 },
};

/** A key sequence in Qt's notation ("Ctrl+Alt+Space") as the helpers grab it, or what is wrong with it. */
export function parseGlobalKey(spec: string): ParsedKey {
  const parts = spec.split('+').map((p) => p.trim());
  const key = parts.pop() ?? '';
  const mods = parts.map((m) => (m.toLowerCase() === 'control' ? 'Ctrl' : m.charAt(0).toUpperCase() + m.slice(1).toLowerCase()));
  const unknown = mods.find((m) => !(m in X11_MODS));
  if (unknown !== undefined) return { ok: false, message: `'${spec}': '${unknown}' is not a modifier (Ctrl, Alt, Shift or Meta)` };
  if (!mods.some((m) => m !== 'Shift'))
    return { ok: false, message: `'${spec}' needs Ctrl, Alt or Meta: a global key without one would take that key from typing everywhere` };
  const name = key.length === 1 ? key.toUpperCase() : key.charAt(0).toUpperCase() + key.slice(1).toLowerCase();
  const code = MAC_CODES[/^F\d+$/i.test(key) ? key.toUpperCase() : name];
  if (code === undefined)
    return { ok: false, message: `'${spec}': '${key}' is not a key a global shortcut can use (a letter, a digit, Space, Return, Tab, Escape or F1–F12)` };
  const keysym = /^[A-Z]$/.test(name) ? name.toLowerCase() : /^F\d+$/i.test(key) ? key.toUpperCase() : name === 'Space' ? 'space' : name;
  const sum = (table: Record<string, number>) => [...new Set(mods)].reduce((a, m) => a + table[m]!, 0);
  return { ok: true, x11: { mods: sum(X11_MODS), key: keysym }, carbon: { mods: sum(CARBON_MODS), key: String(code) } };
}

export type GlobalKeyState = 'off' | 'pending' | 'on' | 'taken' | 'invalid' | 'unavailable';
export interface GlobalKeyStatus {
  action: GlobalKeyAction;
  keys: string;
  state: GlobalKeyState;
  /** What Settings says beside the key: why it does not work, or ''. */
  message: string;
}

/** The helper process and each action's key and status. */
export class GlobalKeys {
  private child: ChildProcessWithoutNullStreams | null = null;
  private readonly status = new Map<GlobalKeyAction, GlobalKeyStatus>();
  private readonly pressed = new Emitter<GlobalKeyAction>();
  private readonly changed = new Emitter<void>();
  /** A key was pressed, whichever application had the focus. */
  readonly onPressed = this.pressed.event;
  /** A key's status changed (grabbed, refused, helper gone). */
  readonly onStatus = this.changed.event;

  constructor(
    readonly backend: GlobalKeysBackend,
    private readonly log: Logger,
  ) {}

  /** The backend this machine has, with the helper built at set-up if it is there. */
  static forThisMachine(log: Logger): GlobalKeys {
    const helper = existsSync(HOTKEY_HELPER) ? HOTKEY_HELPER : null;
    return new GlobalKeys(chooseGlobalKeysBackend({ platform: process.platform, env: process.env, helper }), log);
  }

  statuses(): GlobalKeyStatus[] {
    return GLOBAL_KEY_ACTIONS.map((a) => this.status.get(a) ?? { action: a, keys: '', state: 'off', message: '' });
  }

  /** Grabs each action's key ('' = off), releasing what was grabbed before. */
  apply(keys: Record<GlobalKeyAction, string>): void {
    for (const action of GLOBAL_KEY_ACTIONS) {
      const spec = keys[action].trim();
      const prev = this.status.get(action);
      if (prev && prev.keys === spec && prev.state !== 'unavailable') continue;
      this.set(action, spec, this.grab(action, spec));
    }
  }

  private grab(action: GlobalKeyAction, spec: string): Pick<GlobalKeyStatus, 'state' | 'message'> {
    const b = this.backend;
    if (b.kind === 'unavailable') return { state: 'unavailable', message: b.why };
    if (spec === '') {
      this.child?.stdin.write(`ungrab ${action}\n`);
      return { state: 'off', message: '' };
    }
    const parsed = parseGlobalKey(spec);
    if (!parsed.ok) {
      this.child?.stdin.write(`ungrab ${action}\n`);
      return { state: 'invalid', message: parsed.message };
    }
    const k = b.kind === 'x11' ? parsed.x11 : parsed.carbon;
    this.helper(b.helper).stdin.write(`grab ${action} ${k.mods} ${k.key}\n`);
    return { state: 'pending', message: '' };
  }

  /** Raises and focuses this X window as of the last key press (a global key's answer): the
   *  app's own request carries an older time than the focus of the application in front, and
   *  X ignores it. A no-op on macOS, where the app's own activation is allowed. */
  activate(windowId: number): void {
    if (this.backend.kind === 'x11') this.child?.stdin.write(`activate ${windowId}\n`);
  }

  private set(action: GlobalKeyAction, keys: string, s: Pick<GlobalKeyStatus, 'state' | 'message'>): void {
    this.status.set(action, { action, keys, ...s });
    this.log.info('global key', { action, keys, state: s.state, message: s.message || undefined });
    this.changed.fire();
  }

  private helper(path: string): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawn(path, [], { stdio: 'pipe' });
    this.child = child;
    createInterface({ input: child.stdout }).on('line', (line) => this.heard(line));
    child.stderr.on('data', (b: Buffer) => this.log.warn('global-key helper', { stderr: b.toString().trim() }));
    child.on('error', (err) => this.lost(`the global-key helper could not run: ${err.message}`));
    child.on('exit', (code) => this.child === child && this.lost(`the global-key helper ended (exit ${code})`));
    return child;
  }

  /** One line from the helper: ready, grabbed ID, failed ID taken|nokey, pressed ID, fatal …. */
  private heard(line: string): void {
    const [verb, id, why] = line.split(' ');
    const s = this.status.get(id as GlobalKeyAction);
    if (verb === 'fatal') return this.lost(line.slice('fatal '.length));
    if (!s) return;
    if (verb === 'pressed') this.pressed.fire(s.action);
    else if (verb === 'grabbed') this.set(s.action, s.keys, { state: 'on', message: '' });
    else if (verb === 'failed' && why === 'taken')
      this.set(s.action, s.keys, { state: 'taken', message: `${s.keys} is taken by another application: choose another key` });
    else if (verb === 'failed') this.set(s.action, s.keys, { state: 'invalid', message: `${s.keys}: this keyboard has no such key` });
  }

  private lost(why: string): void {
    this.child = null;
    for (const s of this.status.values()) if (s.state !== 'off' && s.state !== 'invalid') this.set(s.action, s.keys, { state: 'unavailable', message: why });
  }

  dispose(): void {
    const child = this.child;
    this.child = null;
    child?.stdin.end();
    this.pressed.dispose();
    this.changed.dispose();
  }
}
