// Claude Code conversations for history tests: the recorded transcript
// (test/fixtures/history/claude-2.1.337.jsonl, first prompt "Tell me about the flaky upload test",
// a reply mentioning ZEBRAFISH) written into a HOME's ~/.claude/projects as if held in another
// folder under another id, its reply's word replaced.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const fixture = join(__dirname, '..', 'fixtures', 'history', 'claude-2.1.337.jsonl');

/** The fixture's conversation as if held in `cwd` under the id `id`, with its reply saying `word`. */
export function writeClaudeConversation(home: string, id: string, cwd: string, word: string): void {
  const text = readFileSync(fixture, 'utf8')
    .replaceAll('c7576f42-5c60-43bf-9cae-98a3dffa60a7', id)
    .replaceAll('/tmp/ts-7Eh1vJ/cap-UTFBbb/proj', cwd)
    .replaceAll('ZEBRAFISH', word);
  const dir = join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${id}.jsonl`), text);
}
