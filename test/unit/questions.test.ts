// The question parser on real captured screens of Claude Code, Codex and Gemini CLI (and the
// documented layouts of the approvals that need a model turn), and on real hook payloads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findChoice, mergeQuestions, questionFromHook, questionFromScreen } from '../../src/protocol/questions';

const FIXTURES = join(__dirname, '..', 'fixtures', 'questions');
const screen = (name: string): string[] => readFileSync(join(FIXTURES, name), 'utf8').split('\n');
const payload = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const summary = (q: ReturnType<typeof questionFromScreen>) => q && { text: q.text, choices: q.choices.map((c) => [c.label, c.keys.join(' '), c.highlighted]) };

describe('questions on real screens', () => {
  it("reads Claude Code's folder-trust question, chosen by digit", () => {
    const q = questionFromScreen(screen('claude-trust.txt'), 'claude');
    expect(summary(q)).toEqual({
      text: 'Is this a project you created or one you trust?',
      choices: [
        ['Yes, I trust this folder', '1', true],
        ['No, exit', '2', false],
      ],
    });
    expect(q!.context).toBe('Accessing workspace:\n/tmp/qcap/proj');
  });

  it("reads Claude Code's Bash permission with the command as its context", () => {
    const q = questionFromScreen(screen('claude-permission-bash.txt'), 'claude');
    expect(summary(q)).toEqual({
      text: 'Do you want to proceed?',
      choices: [
        ['Yes', '1', true],
        ['Yes, and always allow access to build/ from this project', '2', false],
        ['No', '3', false],
      ],
    });
    expect(q!.context).toBe('Bash command\nrm -rf build/cache\nRemove the build cache');
  });

  it("reads AskUserQuestion's options with their descriptions, past the rule before the last", () => {
    const q = questionFromScreen(screen('claude-ask-user-question.txt'), 'claude');
    expect(q!.text).toBe('Which test runner should the project use?');
    expect(q!.choices.map((c) => [c.label, c.description ?? null, c.keys[0]])).toEqual([
      ['Vitest', 'Fast, Vite-native', '1'],
      ['Jest', 'The classic', '2'],
      ['Type something.', null, '3'],
      ['Chat about this', null, '4'],
    ]);
  });

  it("reads Claude Code's API-key question, whose highlight is not the first option", () => {
    expect(summary(questionFromScreen(screen('claude-apikey.txt'), 'claude'))).toEqual({
      text: 'Do you want to use this API key?',
      choices: [
        ['Yes', '1', false],
        ['No (recommended)', '2', true],
      ],
    });
  });

  it("finds no question on Claude Code's idle prompt (its ❯ is the composer)", () => {
    expect(questionFromScreen(screen('claude-idle.txt'), 'claude')).toBeNull();
  });

  it("reads Codex's sign-in menu, chosen with the arrows and Return", () => {
    expect(summary(questionFromScreen(screen('codex-sign-in.txt'), 'codex'))).toEqual({
      text: 'Choose how you want to use Codex.',
      choices: [
        ['Sign in with ChatGPT', 'Enter', true],
        ['Sign in with Device Code', 'ArrowDown Enter', false],
        ['Sign in another way', 'ArrowDown ArrowDown Enter', false],
      ],
    });
  });

  it("reads Codex's command approval with its shortcut keys", () => {
    const q = questionFromScreen(screen('codex-approval.txt'), 'codex');
    expect(summary(q)).toEqual({
      text: 'Would you like to run the following command?',
      choices: [
        ['Yes, proceed', 'y', true],
        ["Yes, and don't ask again for commands that start with `rm -rf build`", 'p', false],
        ['No, and tell Codex what to do differently', 'Escape', false],
      ],
    });
  });

  it("reads Gemini CLI's folder trust inside its box, not the numbered tips above it", () => {
    expect(summary(questionFromScreen(screen('gemini-trust.txt'), 'gemini'))).toEqual({
      text: 'Do you trust the files in this folder?',
      choices: [
        ['Trust folder (gproj)', '1', true],
        ['Trust parent folder (qcap)', '2', false],
        ["Don't trust", '3', false],
      ],
    });
  });

  it("reads Gemini CLI's sign-in and its tool confirmation", () => {
    expect(summary(questionFromScreen(screen('gemini-auth.txt'), 'gemini'))!.text).toBe('How would you like to authenticate for this project?');
    const q = questionFromScreen(screen('gemini-tool-confirmation.txt'), 'gemini');
    expect(summary(q)).toEqual({
      text: "Allow execution of: 'rm'?",
      choices: [
        ['Allow once', '1', true],
        ['Allow for this session', '2', false],
        ['No, suggest changes', '3', false],
      ],
    });
    expect(q!.context).toContain('rm -rf build/cache');
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
  });

  it('takes no numbered list the agent printed for a question', () => {
    // No option is highlighted.
    expect(questionFromScreen(['Steps:', '1. Build', '2. Test', '3. Ship', '> '])).toBeNull();
    // A menu with much more output below it is history, not a question waiting.
    const history = ['Pick one?', '❯ 1. A', '  2. B', ...Array.from({ length: 10 }, (_, i) => `output line ${i}`)];
    expect(questionFromScreen(history)).toBeNull();
    // Numbers that do not start at 1, or skip, are not a menu.
    expect(questionFromScreen(['❯ 2. A', '  3. B'])).toBeNull();
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
