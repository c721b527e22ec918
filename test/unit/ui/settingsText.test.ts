import { describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../../src/app/services/catalog';
import type { AgentHookResult } from '../../../src/app/services/hookInstaller';
import {
  agentCardText,
  hookCardText,
  hooksChangedText,
  settingsAgent,
  settingsProblemsText,
  shortcutLabel,
  type SettingsAgent,
} from '../../../src/app/ui/presenters/settingsText';

const HOME = '/home/u';
const agent = (over: Partial<SettingsAgent> = {}): SettingsAgent => ({
  id: 'claude',
  name: 'Claude Code',
  source: 'bundled with Termio',
  unavailable: null,
  hasBypass: true,
  warnings: [],
  errors: [],
  ...over,
});
// Only the fields the Settings card reads; the catalog fills the rest.
const entry = (over: Partial<CatalogEntry>, manifest: Record<string, unknown>): CatalogEntry =>
  ({
    id: 'claude',
    source: 'bundled',
    label: 'agents/claude.json',
    installed: true,
    identity: { state: 'unchecked' },
    warnings: [],
    errors: [],
    ...over,
    manifest: { id: 'claude', name: 'Claude Code', ...manifest },
  }) as unknown as CatalogEntry;
const hookResult = (over: Partial<AgentHookResult> = {}): AgentHookResult => ({
  agentId: 'claude',
  file: `${HOME}/.claude/settings.json`,
  state: 'installed',
  action: 'written',
  events: ['Stop'],
  missing: [],
  ...over,
});

describe('settings text', () => {
  it('describes a catalog entry, with hook paths under ~', () => {
    const e = entry({}, { permissionBypassFlag: '--yolo', hooks: { events: [{ on: 'Stop' }, { on: 'Notification' }] } });
    expect(settingsAgent(e, hookResult({ note: 'trust it first' }), HOME)).toEqual({
      id: 'claude',
      name: 'Claude Code',
      source: 'bundled with Termio',
      unavailable: null,
      hasBypass: true,
      warnings: [],
      errors: [],
      hooks: { file: '~/.claude/settings.json', state: 'installed', events: ['Stop', 'Notification'], note: 'trust it first' },
    });
    const user = entry(
      { source: 'user' as CatalogEntry['source'], label: '~/.termio/config/agents/claude.json', overrides: 'claude', installed: false },
      { install: 'https://example.com' },
    );
    expect(settingsAgent(user, null, HOME)).toMatchObject({
      source: '~/.termio/config/agents/claude.json (overrides the bundled one)',
      installUrl: 'https://example.com',
      hasBypass: false,
    });
    expect(settingsAgent(user, null, HOME).hooks).toBeUndefined();
    expect(settingsAgent(user, null, HOME).verified).toBeUndefined();
  });

  it('says when the command is another program, and which releases a bundled agent was verified on', () => {
    const other = entry(
      { id: 'grok', installed: false, identity: { state: 'other', answer: '1.0.1' }, verified: null },
      { id: 'grok', name: 'Grok', command: 'grok', install: 'https://x.ai/cli' },
    );
    const card = agentCardText(settingsAgent(other, null, HOME));
    expect(card.heading).toBe('Grok   · another program named grok');
    expect(card.detail).toBe('grok — bundled with Termio — not verified here — install: https://x.ai/cli');
    const verified = entry({ verified: { package: '@anthropic-ai/claude-code', releases: ['2.1.331', '2.1.332'], failed: [] } }, { command: 'claude' });
    expect(agentCardText(settingsAgent(verified, null, HOME)).detail).toBe('claude — bundled with Termio — verified on 2.1.331, 2.1.332');
  });

  it('heads an agent card with availability and lists its problems, errors first', () => {
    expect(agentCardText(agent())).toEqual({ heading: 'Claude Code   · installed', detail: 'claude — bundled with Termio', problems: [] });
    expect(agentCardText(agent({ unavailable: 'not installed', installUrl: 'https://x', warnings: ['w'], errors: ['e'] }))).toEqual({
      heading: 'Claude Code   · not installed',
      detail: 'claude — bundled with Termio — install: https://x',
      problems: ['✕ e', '⚠ w'],
    });
  });

  it('words each hook state and offers the opposite action', () => {
    const h = { file: '~/.claude/settings.json', events: ['Stop', 'Notification'] };
    expect(hookCardText('Claude Code', { ...h, state: 'installed' })).toEqual({
      heading: 'Claude Code — reporting live status',
      detail: 'Writes to ~/.claude/settings.json: Stop, Notification',
      button: 'Uninstall',
      installed: true,
    });
    expect(hookCardText('Claude Code', { ...h, state: 'partial' })).toMatchObject({
      heading: 'Claude Code — partly installed',
      button: 'Install',
      installed: false,
    });
    expect(hookCardText('Claude Code', { ...h, state: 'absent' }).heading).toBe('Claude Code — not installed');
    expect(hookCardText('Claude Code', { ...h, state: 'unparsable' }).heading).toBe('Claude Code — unparsable');
  });

  it('reports an install or removal with the file and backup under ~', () => {
    expect(hooksChangedText('Claude Code', true, hookResult({ backup: `${HOME}/.termio/backups/hooks/x` }), HOME)).toBe(
      'Claude Code: live status on (~/.claude/settings.json; backup at ~/.termio/backups/hooks/x)',
    );
    expect(hooksChangedText('Claude Code', false, hookResult(), HOME)).toBe('Claude Code: live status off (~/.claude/settings.json)');
    expect(hooksChangedText('Claude Code', true, hookResult({ error: 'cannot parse' }), HOME)).toBe('cannot parse');
    expect(hooksChangedText('Aider', true, null, HOME)).toBe('Aider declares no hooks.');
  });

  it('lists settings.json problems without repeating the file name', () => {
    const file = '~/.termio/config/settings.json';
    expect(settingsProblemsText([], file)).toBe('');
    expect(settingsProblemsText([`${file}: terminal.fontSize: expected number`, 'other'], file)).toBe(
      `Some settings in ${file} could not be used; every other setting is in effect:\nterminal.fontSize: expected number\nother`,
    );
  });

  it('turns an action name into a label', () => {
    expect(shortcutLabel('jumpToSession')).toBe('Jump To Session');
    expect(shortcutLabel('settings')).toBe('Settings');
  });
});
