// The fan-out verbs: start one prompt in a new worktree per agent (each through the ordinary
// spawn, so worktree creation, set-up, bypass rules and prompt delivery are the spawn's own),
// record them as one group, show each member's branch, state and diff stat, run the repository's
// test command in a member's worktree, and merge one member through the review's merge, leaving
// the other members exactly as they were.
import { spawn } from 'node:child_process';
import type { ControlArgs, FanoutMember, FanoutMemberStatus, FanoutTest, Outcome } from '../../../protocol/control';
import { MAX_TEST_OUTPUT_CHARS } from '../../../protocol/control';
import type { SessionRegistry } from '../sessions/sessionRegistry';
import { findMember, type FanoutGroups } from './fanoutGroups';
import { readTestCommand } from './setup';
import { answer } from './worktreeVerbs';
import type { WorktreeService, WorktreeStatus } from './worktreeService';

/** A test command that has not finished in this long is ended and counts as failed. */
const TEST_TIMEOUT_MS = 15 * 60_000;

export interface FanoutVerbsDeps {
  service: () => Promise<WorktreeService>;
  groups: () => Promise<FanoutGroups>;
  registry: SessionRegistry;
  /** Why an agent cannot be started now, or null (the spawn's own check). */
  cannotStart: (agent: string) => Promise<string | null>;
  /** The PATH the test command runs with (the one sessions get). */
  path: () => string;
}

type SpawnArgs = ControlArgs<'sessions.spawn'>;
/** A spawn's answer (as the verb table gives it: 'replied' is never a spawn's). */
type Answer = Outcome | 'replied';
/** A spawn as the control verb does it for this caller; close as `sessions.close` does it. */
export interface FanoutSpawner {
  spawn(args: SpawnArgs): Promise<Answer>;
  close(args: ControlArgs<'sessions.close'>): Promise<Outcome>;
}

export class FanoutVerbs {
  constructor(private readonly d: FanoutVerbsDeps) {}

  /** `sessions.fanout`: checks every agent and the repository first, then starts the members one by one. */
  async start(args: ControlArgs<'sessions.fanout'>, via: FanoutSpawner): Promise<Outcome> {
    const service = await this.d.service();
    const refusals = (await Promise.all([...new Set(args.agents)].map((a) => this.d.cannotStart(a)))).filter((r) => r !== null);
    if (refusals.length) return { ok: false, code: 'spawnFailed', message: `sessions.fanout: nothing was started: ${refusals.join('; ')}` };
    const where = await service.check({ dir: args.cwd, base: args.base });
    if (!where.ok) return { ok: false, code: 'worktreeRefused', message: `sessions.fanout: nothing was started: ${where.message}` };
    const members: FanoutMember[] = [];
    for (const agent of args.agents) {
      const r = await via.spawn({
        agent,
        cwd: args.cwd,
        prompt: args.prompt,
        worktree: { base: where.base },
        parent: args.parent,
      });
      const wt = r !== 'replied' && r.ok ? (r.result as { id: string; session: { worktree?: { branch: string; path: string } } }) : null;
      if (!wt?.session.worktree) return this.undo(members, agent, r, via);
      members.push({ agent, sessionId: wt.id, branch: wt.session.worktree.branch, path: wt.session.worktree.path, test: null });
    }
    const groups = await this.d.groups();
    const group = groups.add({ repo: where.repo, base: where.base, prompt: args.prompt, createdAt: new Date().toISOString(), members, merged: null });
    return { ok: true, result: { group } };
  }

  /** A member failed to start: the ones started before it are closed and their fresh worktrees
   *  removed through the ordinary close, which keeps any that already hold work. */
  private async undo(started: FanoutMember[], agent: string, r: Answer, via: FanoutSpawner): Promise<Outcome> {
    const why = r === 'replied' ? 'no result' : r.ok ? 'it did not start in a worktree' : r.message;
    const undone: string[] = [];
    for (const m of started) {
      const closed = await via.close({ id: m.sessionId, worktree: 'remove' });
      undone.push(closed.ok ? `closed ${m.branch} and removed its worktree` : `kept ${m.branch} (${closed.message})`);
    }
    const after = undone.length ? `; of the members started before it: ${undone.join('; ')}` : '';
    return { ok: false, code: r !== 'replied' && !r.ok ? r.code : 'spawnFailed', message: `sessions.fanout: ${agent} did not start: ${why}${after}` };
  }

  async list(): Promise<Outcome> {
    return { ok: true, result: { groups: (await this.d.groups()).list() } };
  }

  async show(args: ControlArgs<'sessions.fanout.show'>): Promise<Outcome> {
    const found = (await this.d.groups()).find(args.group);
    if (!found.ok) return { ok: false, code: 'noSuchGroup', message: found.message };
    const group = found.value;
    const service = await this.d.service();
    const worktrees = await service.list();
    const members = await Promise.all(
      group.members.map((m) =>
        this.status(
          service,
          m,
          worktrees.find((w) => w.path === m.path),
        ),
      ),
    );
    const test = readTestCommand(group.repo);
    return { ok: true, result: { group, members, testCommand: test.ok ? test.command : null } };
  }

  private async status(service: WorktreeService, m: FanoutMember, w: WorktreeStatus | undefined): Promise<FanoutMemberStatus> {
    const r = this.d.registry.get(m.sessionId);
    const state = !r ? 'closed' : r.session.exited ? 'exited' : r.state;
    const present = w?.present === true;
    const files = present ? await service.files(w) : null;
    const list = Array.isArray(files) ? files : null;
    const sum = (key: 'added' | 'removed') => list?.reduce((n, f) => n + (f[key] ?? 0), 0) ?? 0;
    return { ...m, state, present, files: list?.length ?? null, added: sum('added'), removed: sum('removed'), uncommitted: w?.uncommitted ?? 0 };
  }

  /** `sessions.fanout.test`: the set-up file's test command in the member's worktree; the result is kept with the group. */
  async test(args: ControlArgs<'sessions.fanout.test'>): Promise<Outcome> {
    const groups = await this.d.groups();
    const found = groups.find(args.group);
    if (!found.ok) return { ok: false, code: 'noSuchGroup', message: found.message };
    const member = findMember(found.value, args.member);
    if (!member.ok) return { ok: false, code: 'noSuchMember', message: member.message };
    const command = readTestCommand(found.value.repo);
    if (!command.ok) return { ok: false, code: 'worktreeRefused', message: command.message };
    if (command.command === null)
      return {
        ok: false,
        code: 'noTestCommand',
        message: `${found.value.repo}/.termio/worktree.json names no test command: add "test": "npm test" (any shell command line) to it`,
      };
    const test = await runTest(command.command, member.value.path, { ...process.env, PATH: this.d.path() });
    groups.update(found.value.id, (g) => {
      const m = g.members.find((x) => x.sessionId === member.value.sessionId);
      if (m) m.test = test;
    });
    return { ok: true, result: { branch: member.value.branch, test } };
  }

  /** `sessions.fanout.merge`: the review's merge of one member (its uncommitted files committed first when asked). */
  async merge(args: ControlArgs<'sessions.fanout.merge'>): Promise<Outcome> {
    const groups = await this.d.groups();
    const found = groups.find(args.group);
    if (!found.ok) return { ok: false, code: 'noSuchGroup', message: found.message };
    const member = findMember(found.value, args.member);
    if (!member.ok) return { ok: false, code: 'noSuchMember', message: member.message };
    const service = await this.d.service();
    const rec = service.ofSession(member.value.sessionId) ?? service.find(member.value.path);
    if (!rec)
      return { ok: false, code: 'notAWorktree', message: `the worktree of ${member.value.branch} (${member.value.path}) was removed; nothing to merge` };
    if (args.commit && ((await service.stake(rec))?.uncommitted.length ?? 0) > 0) {
      const title = this.d.registry.get(member.value.sessionId)?.title ?? '';
      const committed = await service.act(rec, 'commit', service.proposedMessage(rec, title));
      if (!committed.ok) return answer(committed);
    }
    const merged = await service.act(rec, 'merge');
    if (!merged.ok) return answer(merged);
    groups.update(found.value.id, (g) => {
      g.merged = member.value.branch;
    });
    const kept = found.value.members.filter((m) => m !== member.value).map((m) => m.branch);
    return { ok: true, result: { branch: member.value.branch, message: merged.message, kept } };
  }
}

/** Runs a command line with /bin/sh in `cwd`; its output's tail and exit status. */
function runTest(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<FanoutTest> {
  return new Promise((resolve) => {
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-MAX_TEST_OUTPUT_CHARS);
    };
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      keep(Buffer.from(`\n[termio] the test command ran longer than ${TEST_TIMEOUT_MS / 60_000} minutes and was ended\n`));
      killGroup(child.pid);
    }, TEST_TIMEOUT_MS);
    const finish = (exitCode: number | null) => {
      clearTimeout(timer);
      resolve({ command, passed: exitCode === 0, exitCode, output, at: new Date().toISOString() });
    };
    child.on('error', (err) => {
      keep(Buffer.from(`could not run /bin/sh: ${err.message}\n`));
      finish(null);
    });
    child.on('close', (code) => finish(code));
  });
}

/** Ends the test command and what it started (it runs in a process group of its own). */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
