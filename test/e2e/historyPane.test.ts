// The History pane in the real app under Xvfb: two Claude Code conversations (the recorded
// fixture's lines, one in a project folder that exists, one in a folder since removed) are in a
// temporary HOME before the host starts. Ctrl+Shift+H opens the pane; typing a word of the reply
// lists the conversation with that line and the hit marked (screenshot); Enter resumes it — a tab
// in its folder running `claude --resume <id>` — and a second Enter brings that tab forward
// instead of opening another; the tab's why strip notes the tokens the conversation used. The
// conversation whose folder is gone says so.
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeClaudeConversation as writeConversation } from '../helpers/historyFixture';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, installFakeAgents, useDesktop } from './harness';

const historyKey = process.platform === 'darwin' ? 'super+shift+h' : 'ctrl+shift+h';
const selectAll = process.platform === 'darwin' ? 'super+a' : 'ctrl+a';
type Results = { query: string; results: { agent: string; conversation: string; cwd: string; lines: string[] }[] };

describe.skipIf(e2eSkipReason)('history pane', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({ size: '1400x900x24', started: (d) => (display = d), current: () => app, done: () => (app = undefined) });

  it('finds a past conversation by a word, resumes it in its folder, and says when a folder is gone', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    installFakeAgents(home, ['claude']);
    const project = join(home, 'proj');
    mkdirSync(project);
    const live = '11111111-2222-4333-8444-555555555555';
    const gone = '66666666-7777-4888-8999-aaaaaaaaaaaa';
    writeConversation(home, live, project, 'ZEBRAFISH');
    writeConversation(home, gone, join(home, 'removed'), 'QUOKKA');
    app = await AppUnderTest.launch(display, { home });
    const win = await app.waitForWindow();
    await waitFor(
      async () => {
        const r = await app!.cli(['history', 'status', '--json']);
        const p = r.code === 0 ? (JSON.parse(r.stdout) as { scanned: boolean; indexing: boolean; conversations: number }) : null;
        return p?.scanned && !p.indexing && p.conversations === 2;
      },
      { what: 'the history index to hold both conversations' },
    );
    const results = (query: string) =>
      waitFor(() => [...app!.log().matchAll(/history results (\{.*\})/g)].map((m) => JSON.parse(m[1]!) as Results).find((r) => r.query === query), {
        what: `the pane's results for ${query}`,
      });

    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', historyKey);
    const pane = await app.waitForWindow('History');
    display.xdotool('windowfocus', '--sync', pane);
    display.xdotool('type', '--delay', '20', 'zebrafish');
    const found = await results('zebrafish');
    expect(found.results).toEqual([{ agent: 'claude', conversation: live, cwd: project, lines: ['First answer mentions ZEBRAFISH.'] }]);
    app.screenshot('history-pane');

    display.xdotool('key', 'Return');
    const resumed = await app.waitForLog(/history resumed \{"conversation":"11111111-[^"]*","session":"([^"]+)","opened":true\}/);
    const sessions = await waitFor(
      async () => {
        const list = JSON.parse((await app!.cli(['sessions', 'list', '--json'])).stdout) as { sessions: { id: string; cwd: string; argv: string[] }[] };
        return list.sessions.find((s) => s.id === resumed[1]);
      },
      { what: 'the resumed session' },
    );
    expect(sessions.cwd).toBe(project);
    expect(sessions.argv.join(' ')).toContain(`--resume ${live}`);
    // Its why strip adds what the conversation used so far: the fixture's model has no price.
    await app.waitForLog(/why shown \{"text":"[^"]* · 12\.3k tokens so far, price unknown"\}/);
    // Asked again, the open tab comes forward: no second one.
    display.xdotool('windowfocus', '--sync', pane);
    display.xdotool('key', 'Return');
    await app.waitForLog(new RegExp(`history resumed \\{"conversation":"${live}","session":"${resumed[1]}","opened":false\\}`));

    display.xdotool('windowfocus', '--sync', pane);
    display.xdotool('key', selectAll);
    display.xdotool('type', '--delay', '20', 'quokka');
    expect((await results('quokka')).results.map((r) => r.conversation)).toEqual([gone]);
    display.xdotool('key', 'Return');
    const refused = JSON.parse((await app.waitForLog(/history resume failed (\{.*\})/))[1]!) as { conversation: string; code: string; message: string };
    expect(refused).toMatchObject({ conversation: gone, code: 'folderGone' });
    expect(refused.message).toContain(`its folder ${join(home, 'removed')} is gone`);
    // The resumed tab came forward over the pane; the pane, raised, says why.
    display.xdotool('windowraise', pane);
    app.screenshot('history-pane-folder-gone');
  });
});
