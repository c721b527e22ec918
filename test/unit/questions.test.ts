// The screen question reader over every screen in test/fixtures/questions (screens.json names
// each one's CLI release, how it was captured and the question it asks, or null: real captures of
// Claude Code, Codex, Gemini CLI, Qwen Code, Copilot and Continue, and screens that only look like menus), then its
// rules one at a time on small screens; and questions from real hook payloads.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findChoice, mergeQuestions, questionFromHook, questionFromScreen, tuiOf, type QuestionChoice } from '../../src/protocol/questions';

const FIXTURES = join(__dirname, '..', 'fixtures', 'questions');
const screen = (name: string): string[] => readFileSync(join(FIXTURES, name), 'utf8').split('\n');
const payload = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const summary = (q: ReturnType<typeof questionFromScreen>) => q && { text: q.text, choices: q.choices.map((c) => [c.label, c.keys.join(' '), c.highlighted]) };

interface Captured {
  cli: string;
  how: string;
  /** The agent's hook dialect or id, as the host passes it to tuiOf. */
  agent: string;
  question: { text: string; context: string; choices: QuestionChoice[] } | null;
}
const captured = JSON.parse(payload('screens.json')) as Record<string, Captured>;

describe('every screen in the fixtures', () => {
  it('has its question written down in screens.json, and each one written down has its screen', () => {
    const screens = readdirSync(FIXTURES).filter((f) => f.endsWith('.txt'));
    expect(Object.keys(captured).sort()).toEqual(screens.sort());
  });

  it.for(Object.entries(captured).map(([file, c]) => [file, c.cli, c] as const))('%s (%s)', ([file, , c]) => {
    const q = questionFromScreen(screen(file), tuiOf(c.agent));
    if (c.question === null) return expect(q, `${c.how}: no question expected`).toBeNull();
    expect(q, c.how).not.toBeNull();
    expect({ text: q!.text, context: q!.context, choices: q!.choices }).toEqual(c.question);
    expect(q!.source).toBe('screen');
  });
});

/** A dialog as Claude Code 2.1.332 draws it, with `options` in place of its two options. */
const dialog = (options: string[], footer = ' Enter to confirm \u00b7 Esc to cancel') => [
  '\u2500'.repeat(60),
  ' Do you want to keep going?',
  '',
  ...options,
  '',
  footer,
];

describe('menus by their shape', () => {
  it('reads options without numbers, the highlight anywhere, chosen by the arrows from it', () => {
    const q = questionFromScreen(dialog(['   Red', ' \u276F Green', '   Blue']), 'claude');
    expect(summary(q)).toEqual({
      text: 'Do you want to keep going?',
      choices: [
        ['Red', 'ArrowUp Enter', false],
        ['Green', 'Enter', true],
        ['Blue', 'ArrowDown Enter', false],
      ],
    });
  });

  it('takes numbered options in any order, each chosen by its own number; `2)` numbers too', () => {
    const q = questionFromScreen(dialog([' \u276F 2) No', '   1) Yes']), 'claude');
    expect(summary(q)!.choices).toEqual([
      ['No', '2', true],
      ['Yes', '1', false],
    ]);
    // In a TUI whose digits are not known to choose, the arrows do.
    expect(summary(questionFromScreen(dialog([' \u276F 2) No', '   1) Yes']), 'generic'))!.choices.map((c) => c[1])).toEqual(['Enter', 'ArrowDown Enter']);
  });

  it('joins a label the TUI wrapped onto the next row, and keeps a short line below a label as its description', () => {
    const wrapped = dialog(['   Keep the old one', ' \u276F Replace it with the file', '   from the template', '   Cancel'], ' \u2191/\u2193 to navigate');
    // 32 columns: "from" would not have fitted after "file", so the row below carries the label on.
    wrapped[0] = '\u2500'.repeat(32);
    expect(questionFromScreen(wrapped)!.choices.map((c) => c.label)).toEqual(['Keep the old one', 'Replace it with the file from the template', 'Cancel']);
    const described = questionFromScreen(dialog([' \u276F 1. Fast', '      Uses the cache', '   2. Clean', '      Builds everything again']));
    expect(described!.choices.map((c) => [c.label, c.description])).toEqual([
      ['Fast', 'Uses the cache'],
      ['Clean', 'Builds everything again'],
    ]);
  });

  it('reads a menu inside a box, its side bars taken off', () => {
    const boxed = [
      '\u256D' + '\u2500'.repeat(30) + '\u256E',
      '\u2502 Pick a mode?                 \u2502',
      '\u2502 \u25CF Fast                      \u2502',
      '\u2502   Thorough                  \u2502',
      '\u2570' + '\u2500'.repeat(30) + '\u256F',
    ];
    expect(summary(questionFromScreen(boxed))).toEqual({
      text: 'Pick a mode?',
      choices: [
        ['Fast', 'Enter', true],
        ['Thorough', 'ArrowDown Enter', false],
      ],
    });
  });

  it('wants exactly one option highlighted', () => {
    expect(questionFromScreen(dialog(['   Red', '   Green']))).toBeNull();
    expect(questionFromScreen(dialog([' \u276F Red', ' \u276F Green']))).toBeNull();
    expect(questionFromScreen(['Steps:', '1. Build', '2. Test', '3. Ship', '> '])).toBeNull();
  });

  it('wants options without numbers to come with a hint, or a question with nothing below', () => {
    const bare = ['Files:', '\u276F notes.md', '  todo.md'];
    expect(questionFromScreen(bare)).toBeNull();
    // "esc to interrupt" is a working agent's hint, not a menu's.
    expect(questionFromScreen([...bare, '', '\u2733 Thinking\u2026 (esc to interrupt)'])).toBeNull();
    expect(questionFromScreen([...bare, '', 'Enter to select \u00b7 Esc to cancel'])!.choices.map((c) => c.label)).toEqual(['notes.md', 'todo.md']);
    expect(questionFromScreen(['Open which file?', '\u276F notes.md', '  todo.md'])!.text).toBe('Open which file?');
    // Inquirer's hint sits on the question's row, and its output may go on below.
    const inquirer = ['? Pick a color: (Use arrow keys)', '\u276F Red', '  Green', '', 'loading plugins\u2026'];
    expect(summary(questionFromScreen(inquirer))).toEqual({
      text: '? Pick a color: (Use arrow keys)',
      choices: [
        ['Red', 'Enter', true],
        ['Green', 'ArrowDown Enter', false],
      ],
    });
  });

  it('takes no menu with a prompt below it: the composer or the shell is what waits for input', () => {
    const list = screen('shell-cat-numbered-list.txt');
    expect(questionFromScreen(list)).toBeNull();
    // The same rows without the shell's prompt below them are a menu.
    const withoutPrompt = list.slice(0, list.indexOf('$ '));
    expect(questionFromScreen(withoutPrompt)!.choices.map((c) => c.label)).toEqual(['Tag the release', 'Push the tag', 'Announce it']);
    const prose = screen('claude-2.1.332-prose-numbered-list-100.txt');
    const composer = prose.findLastIndex((l) => l.startsWith('\u276F'));
    expect(questionFromScreen(prose, 'claude')).toBeNull();
    expect(questionFromScreen(prose.slice(0, composer - 1), 'claude')!.choices.map((c) => c.label)).toEqual(['Build the project', 'Run the tests', 'Ship it']);
  });

  it('takes no menu with much more output below it, nor numbers that skip', () => {
    // A menu with much more output below it is history, not a question waiting.
    const history = ['Pick one?', '\u276F 1. A', '  2. B', ...Array.from({ length: 10 }, (_, i) => `output line ${i}`)];
    expect(questionFromScreen(history)).toBeNull();
    expect(questionFromScreen(['Pick one?', '\u276F 2. A', '  3. B'])).toBeNull();
    expect(questionFromScreen(['Pick one?', '\u276F 1. A', '  3. B'])).toBeNull();
  });

  it('reads a (y/n) prompt on the last line, the default highlighted', () => {
    expect(summary(questionFromScreen(['$ apt install x', 'Do you want to continue? [Y/n] ']))).toEqual({
      text: 'Do you want to continue?',
      choices: [
        ['Yes', 'y Enter', true],
        ['No', 'n Enter', false],
      ],
    });
    expect(questionFromScreen(['Allow Bash(npm test)? (y/n)'])!.text).toBe('Allow Bash(npm test)?');
    // (y/n) in the middle of the output is not a prompt.
    expect(questionFromScreen(['he asked (y/n)', 'then left', '$ '])).toBeNull();
  });
});

describe('questions from hook payloads', () => {
  it("names Claude's Bash command from its PermissionRequest", () => {
    const q = questionFromHook(payload('claude-hook-permission-bash.json'), 'claude');
    expect(q).toMatchObject({ text: 'Run `rm -rf build/cache`?', context: 'Remove the build cache', source: 'hook' });
    expect(q!.choices.map((c) => [c.label, c.keys.join(' ')])).toEqual([
      ['Yes', '1'],
      ['No', 'Escape'],
    ]);
  });

  it("reads AskUserQuestion's question and options", () => {
    const q = questionFromHook(payload('claude-hook-ask-user-question.json'), 'claude');
    expect(q!.text).toBe('Which test runner should the project use?');
    expect(q!.choices.map((c) => [c.label, c.keys[0]])).toEqual([
      ['Vitest', '1'],
      ['Jest', '2'],
    ]);
  });

  it("reads Codex's PermissionRequest (argv command, its y / Esc keys)", () => {
    const q = questionFromHook(
      JSON.stringify({ hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: ['rm', '-rf', 'build'] } }),
      'codex',
    );
    expect(q!.text).toBe('Run `rm -rf build`?');
    expect(q!.choices.map((c) => c.keys.join(' '))).toEqual(['y', 'Escape']);
    const edit = questionFromHook(JSON.stringify({ tool_name: 'Edit', tool_input: { file_path: '/a/b.ts' } }), 'claude');
    expect(edit!.text).toBe('Edit /a/b.ts?');
  });

  it("reads OpenCode's permission.asked as its plugin forwards it: the command, and the row of buttons' keys", () => {
    const q = questionFromHook(payload('opencode-1.18.33-hook-permission-bash.json'), tuiOf('opencode2'));
    expect(q).toMatchObject({ text: 'Run `touch probe.txt`?', source: 'hook' });
    expect(q!.choices.map((c) => [c.label, c.keys.join(' '), c.highlighted])).toEqual([
      ['Allow once', 'Enter', true],
      ['Allow always', 'ArrowRight Enter Enter', false],
      ['Reject', 'Escape', false],
    ]);
    expect(findChoice(q!, 'Allow once')!.keys).toEqual(['Enter']);
    // Its screen has no pointer to read (the highlight is a colour): the hook's choices stand.
    expect(mergeQuestions(q, questionFromScreen(screen('opencode-1.18.33-permission-bash-80.txt'), 'opencode'))).toBe(q);
    const edit = questionFromHook(
      JSON.stringify({ properties: { permission: 'edit', patterns: ['src/a.ts'], metadata: { filepath: '/p/src/a.ts' } } }),
      'opencode',
    );
    expect(edit!.text).toBe('Edit /p/src/a.ts?');
    const other = questionFromHook(JSON.stringify({ properties: { permission: 'webfetch', patterns: ['https://x.test/*'], metadata: {} } }), 'opencode');
    expect(other!.text).toBe('Allow webfetch: https://x.test/*?');
  });

  it("reads the command from Gemini CLI's Notification details (0.61.0's payload)", () => {
    const q = questionFromHook(
      JSON.stringify({
        hook_event_name: 'Notification',
        notification_type: 'ToolPermission',
        message: 'Tool Confirm Shell Command requires execution',
        details: { type: 'exec', title: 'Confirm Shell Command', command: 'touch probe.txt', rootCommand: 'touch' },
      }),
      'gemini',
    );
    expect(q).toMatchObject({ text: 'Run `touch probe.txt`?', context: 'Confirm Shell Command' });
    // Its menu's own choices, for when the hook arrives before the screen shows the menu.
    expect(q!.choices.map((c) => `${c.label}=${c.keys.join(' ')}`)).toEqual(['Allow once=1', 'Allow for this session=2', 'No, suggest changes=Escape']);
    const edit = questionFromHook(
      JSON.stringify({ message: 'Tool Edit requires editing', details: { type: 'edit', title: 'Edit', filePath: '/p/a.ts' } }),
      'gemini',
    );
    expect(edit!.text).toBe('Edit /p/a.ts?');
    // Details that name nothing leave the message as the question.
    expect(questionFromHook(JSON.stringify({ message: 'Tool X requires execution', details: { type: 'other' } }), 'gemini')!.text).toBe(
      'Tool X requires execution',
    );
  });

  it('gives nothing for a payload that is not JSON or names nothing', () => {
    expect(questionFromHook('{"tool_name":"Ba', 'claude')).toBeNull();
    expect(questionFromHook('{}', 'claude')).toBeNull();
    // A tool with no input names nothing worth asking about: the screen may.
    expect(questionFromHook('{"tool_name":"Bash"}', 'claude')).toBeNull();
  });

  it('merges: the hook names the command, the screen gives the keys; the fingerprint follows', () => {
    const hook = questionFromHook(payload('claude-hook-permission-bash.json'), 'claude');
    const onScreen = questionFromScreen(screen('claude-permission-bash.txt'), 'claude');
    const q = mergeQuestions(hook, onScreen)!;
    expect(q.text).toBe('Run `rm -rf build/cache`?');
    expect(q.choices.map((c) => c.label)).toEqual(['Yes', 'Yes, and always allow access to build/ from this project', 'No']);
    expect(q.source).toBe('hook+screen');
    expect(mergeQuestions(hook, onScreen)!.fingerprint).toBe(q.fingerprint);
    expect(q.fingerprint).not.toBe(onScreen!.fingerprint);
  });

  it('finds a choice by number, label, prefix or key', () => {
    const q = questionFromScreen(screen('codex-approval.txt'), 'codex')!;
    expect(findChoice(q, '1')!.label).toBe('Yes, proceed');
    expect(findChoice(q, 'no')!.keys).toEqual(['Escape']);
    expect(findChoice(q, 'yes')).toBeNull();
    expect(findChoice(q, 'p')!.keys).toEqual(['p']);
    expect(findChoice(q, '9')).toBeNull();
  });
});
