// `termio machines install NAME`: puts this Termio's host and CLI on a saved machine over the same
// ssh the hub uses (BatchMode: nothing is asked). Headless — no Qt, no display needed there: the
// compiled JavaScript, the bundled agents and assets, and the runtime packages except NodeGUI, in
// ~/.termio/app with ~/.termio/bin/termio beside it (where the hub's default command looks).
// Node ≥ 20 must be there, and the same OS and CPU as here (node-pty is a native module).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import type { Machine } from '../../protocol/machines';
import { connectHost } from '../client/hostLauncher';
import { installRoot, packageVersion } from '../services/install';
import { sshArgs } from '../services/sshCommand';
import { ExitCode, type CliIo } from './cliIo';
import { printError, printOk } from './output';

/** The oldest Node the host runs on (package.json's engines). */
const MIN_NODE_MAJOR = 20;
/** Packages the app alone needs: Qt's binding is hundreds of MB and useless without a display. */
const APP_ONLY_PACKAGES = new Set(['@nodegui/nodegui']);
/** The probe's marker line: what follows it is ours, whatever a login banner printed before. */
const MARK = 'TERMIO-PROBE';

function ssh(m: Machine, command: string, input?: (stdin: NodeJS.WritableStream) => void): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn('ssh', sshArgs(m, { batch: true, command }), { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', (err) => (stderr += err.message));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
    if (input) input(p.stdin);
    else p.stdin.end();
  });
}

/** The runtime packages and everything they depend on, by folder under node_modules. */
export function runtimePackages(root: string): string[] {
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name) || APP_ONLY_PACKAGES.has(name)) return;
    const dir = join(root, 'node_modules', name);
    if (!existsSync(join(dir, 'package.json'))) return;
    seen.add(name);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const d of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) visit(d);
  };
  const top = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const d of Object.keys(top.dependencies)) visit(d);
  return [...seen].sort().map((n) => join('node_modules', n));
}

function unameOf(p: string, a: string): string {
  const os = { linux: 'Linux', darwin: 'Darwin' }[p] ?? p;
  const cpu = { x64: 'x86_64', arm64: os === 'Darwin' ? 'arm64' : 'aarch64' }[a] ?? a;
  return `${os} ${cpu}`;
}

/** A step that could not be done, with the message the command prints. */
type Failed = { failed: string };
const isFailed = (x: unknown): x is Failed => typeof x === 'object' && x !== null && 'failed' in x;

export async function install(name: string, io: CliIo, json: boolean): Promise<number> {
  const fail = (step: Failed): number => {
    printError(io, json, 'internal', step.failed);
    return ExitCode.failed;
  };
  const m = await savedMachine(io.env, name);
  if (isFailed(m)) return fail(m);
  const node = await remoteNode(m);
  if (isFailed(node)) return fail(node);
  const copied = await copyTermio(m);
  if (isFailed(copied)) return fail(copied);
  const version = packageVersion();
  // The hub connects now rather than at its next retry.
  const again = await connectHost(io.env, { client: 'termio-cli', start: true });
  if (!('kind' in again)) {
    await again.request('machines.retry', { name });
    again.close();
  }
  if (!copied.stdout.includes(`termio ${version}`))
    return fail({ failed: `Termio was copied to ${name} but does not run there: ${copied.stdout.trim()} ${copied.stderr.trim()}` });
  if (json) printOk(io, { machine: name, version, path: '~/.termio/app', node });
  else io.out(`Termio ${version} installed on ${name} in ~/.termio/app (Node ${node}); connecting (termio machines list)\n`);
  return ExitCode.ok;
}

/** The saved machine called `name`, as the host has it. */
async function savedMachine(env: NodeJS.ProcessEnv, name: string): Promise<Machine | Failed> {
  const client = await connectHost(env, { client: 'termio-cli', start: true });
  if ('kind' in client) return { failed: client.message };
  const list = await client.request('machines.list', {});
  client.close();
  if (!list.ok) return { failed: list.error.message };
  const m = list.result.machines.find((x) => x.name === name);
  return m ?? { failed: `no machine '${name}' (saved: ${list.result.machines.map((x) => x.name).join(', ') || 'none'})` };
}

/** The machine's Node version, once it is known to be new enough and the OS and CPU to match this build. */
async function remoteNode(m: Machine): Promise<string | Failed> {
  const name = m.name;
  const probe = await ssh(m, `echo ${MARK}; uname -sm; command -v node >/dev/null 2>&1 && node -p process.versions.node || echo none`);
  const lines = probe.stdout.split('\n');
  const at = lines.indexOf(MARK);
  if (probe.code !== 0 || at < 0)
    return { failed: `cannot reach ${name} with ssh: ${probe.stderr.trim().split('\n').at(-1) ?? `ssh exited with ${probe.code}`}` };
  const [uname, node] = [lines[at + 1]?.trim() ?? '', lines[at + 2]?.trim() ?? ''];
  if (node === 'none' || !/^\d+\./.test(node))
    return {
      failed: `${name} has no Node.js on its PATH: Termio's host needs Node ${MIN_NODE_MAJOR} or newer there (install it from your system's packages or nodejs.org), then run termio machines install ${name} again`,
    };
  if (Number(node.split('.')[0]) < MIN_NODE_MAJOR) return { failed: `${name} has Node ${node}; Termio's host needs Node ${MIN_NODE_MAJOR} or newer there` };
  const here = unameOf(platform(), arch());
  if (uname !== here)
    return {
      failed: `${name} is ${uname}, this Termio is built for ${here} (its terminal module is native): install Termio there from a package for ${uname}`,
    };
  return node;
}

/** Packs this Termio, unpacks it in ~/.termio/app there; the result of the remote `termio --version`. */
async function copyTermio(m: Machine): Promise<{ stdout: string; stderr: string } | Failed> {
  const parts = [
    'package.json',
    'bin',
    'dist',
    'agents',
    'assets',
    ...(existsSync(join(installRoot, 'native', 'termio-hook', 'build')) ? ['native/termio-hook/build'] : []),
    ...runtimePackages(installRoot),
  ];
  // Unpacked beside the old copy and swapped in, so a failed copy leaves the old one working.
  const unpack = [
    'set -e',
    'mkdir -p "$HOME/.termio/bin"',
    'rm -rf "$HOME/.termio/app.new"',
    'mkdir "$HOME/.termio/app.new"',
    'tar -xzf - -C "$HOME/.termio/app.new"',
    'rm -rf "$HOME/.termio/app"',
    'mv "$HOME/.termio/app.new" "$HOME/.termio/app"',
    'ln -sf ../app/bin/termio "$HOME/.termio/bin/termio"',
    '"$HOME/.termio/bin/termio" --version',
  ].join(' && ');
  const tar = spawn('tar', ['-C', installRoot, '--exclude=node_modules/.bin', '--exclude=*.map', '-czf', '-', ...parts], { stdio: ['ignore', 'pipe', 'pipe'] });
  let tarErr = '';
  tar.stderr.on('data', (d: Buffer) => (tarErr += d.toString()));
  const copied = await ssh(m, unpack, (stdin) => tar.stdout.pipe(stdin));
  if (tarErr.trim()) return { failed: `packing this Termio failed: ${tarErr.trim()}` };
  if (copied.code !== 0)
    return { failed: `copying Termio to ${m.name} failed: ${copied.stderr.trim().split('\n').at(-1) ?? `ssh exited with ${copied.code}`}` };
  return copied;
}
