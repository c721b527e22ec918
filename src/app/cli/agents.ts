// `termio agents list [--json]` and `termio agents validate FILE...`: the agent catalog from the
// command line, without the GUI. list shows what the picker would (installed, resume family,
// status channels, warnings and errors); validate checks manifest files before they are dropped in.
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AgentCatalog, homeLabel, NOT_MANIFESTS, type CatalogEntry, type CatalogProblem } from '../services/catalog';
import { unavailableNote } from '../services/programIdentity';
import { verifiedNote } from '../../protocol/verified';
import { readManifestFile } from '../services/readManifestFile';
import { ExitCode, type CliIo, type CommandHandler } from './cliIo';
import { printOk } from './output';

const USAGE = `Usage:
  termio agents list [--json]      every agent Termio knows: bundled and yours, in picker order
  termio agents validate PATH...   check manifest files, or every *.json in a folder (one line
                                   per file); exit 0 when all are valid, 1 otherwise

list shows id, name, whether the command is on your login shell's PATH (and, when the manifest
says how to recognise it, whether the program there is that agent or another program of the
same name, which Termio does not start), the resume family
(pinned, discovered or none), the status channels (hooks, title, screen), the features a
manifest declares in a form this version cannot use (OFF: hooks, resume, icon or seed; the
warning says why), which releases of a bundled agent's CLI Termio's release matrix ran for real
("not verified here" when none), the source file, and every warning and error. Your manifests live in $TERMIO_HOME/config/agents/<id>.json.
`;

export const run: CommandHandler = async (args, io) => {
  const [verb, ...rest] = args;
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    io.out(USAGE);
    return verb === undefined ? ExitCode.usage : ExitCode.ok;
  }
  if (verb === 'list') return list(rest, io);
  if (verb === 'validate') return validate(rest, io);
  io.err(`termio agents: unknown command '${verb}'\n\n${USAGE}`);
  return ExitCode.usage;
};

/** The options and file arguments of a verb, or null after reporting bad usage or printing help. */
function parse(verb: string, args: string[], io: CliIo, withFiles: boolean): { json: boolean; files: string[] } | null {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: withFiles });
  } catch (err) {
    io.err(`termio agents ${verb}: ${(err as Error).message}\n\n${USAGE}`);
    return null;
  }
  if (parsed.values.help) {
    io.out(USAGE);
    return null;
  }
  return { json: parsed.values.json === true, files: parsed.positionals };
}

async function list(args: string[], io: CliIo): Promise<number> {
  const parsed = parse('list', args, io, false);
  if (!parsed) return args.includes('--help') || args.includes('-h') ? ExitCode.ok : ExitCode.usage;
  const json = parsed.json;
  const catalog = await AgentCatalog.create({ env: io.env, watch: false });
  try {
    await catalog.identified();
    const entries = catalog.list();
    const problems = catalog.problems().filter((p) => !p.keptLastGood);
    if (json) {
      printOk(io, { agents: entries.map(entryJson), problems: problems.map(problemJson) });
    } else {
      io.out(formatTable(entries));
      const messages = [...entries.flatMap((e) => [...e.errors, ...e.warnings]), ...problems.flatMap((p) => [...p.errors, ...p.warnings])];
      if (messages.length) io.out(`\nProblems:\n${messages.map((m) => `  ${m}`).join('\n')}\n`);
    }
  } finally {
    await catalog.dispose();
  }
  return ExitCode.ok;
}

async function validate(args: string[], io: CliIo): Promise<number> {
  const parsed = parse('validate', args, io, true);
  if (!parsed) return args.includes('--help') || args.includes('-h') ? ExitCode.ok : ExitCode.usage;
  const files = parsed.files;
  if (files.length === 0) {
    io.err(`termio agents validate: give at least one manifest file or folder\n\n${USAGE}`);
    return ExitCode.usage;
  }
  let failed = false;
  for (const arg of files) {
    const folder = await manifestFilesIn(resolve(io.cwd, arg));
    if (folder === null) {
      const r = await readManifestFile(resolve(io.cwd, arg), arg, { env: io.env });
      for (const w of r.warnings) io.out(`warning: ${w}\n`);
      if (r.manifest) {
        io.out(`${arg}: ok (${r.manifest.id})\n`);
      } else {
        failed = true;
        for (const e of r.errors) io.out(`error: ${e}\n`);
      }
      continue;
    }
    // A folder: one line per manifest in it, its problems joined on that line.
    if (folder.length === 0) io.out(`${arg}: no *.json manifests in this folder\n`);
    for (const name of folder) {
      const label = join(arg, name);
      const r = await readManifestFile(resolve(io.cwd, label), label, { env: io.env });
      const strip = (m: string) => (m.startsWith(`${label}: `) ? m.slice(label.length + 2) : m);
      if (r.manifest) {
        io.out(`${label}: ok (${r.manifest.id})${r.warnings.length ? `; warnings: ${r.warnings.map(strip).join('; ')}` : ''}\n`);
      } else {
        failed = true;
        io.out(`${label}: error: ${r.errors.map(strip).join('; ')}\n`);
      }
    }
  }
  return failed ? ExitCode.failed : ExitCode.ok;
}

/** The manifest files of a folder, sorted (hidden files and the JSON Schema skipped); null when path is not a folder. */
async function manifestFilesIn(path: string): Promise<string[] | null> {
  try {
    if (!(await stat(path)).isDirectory()) return null;
    return (await readdir(path)).filter((n) => /\.json$/i.test(n) && !n.startsWith('.') && !NOT_MANIFESTS.includes(n)).sort();
  } catch {
    return null;
  }
}

function entryJson(e: CatalogEntry) {
  return {
    id: e.id,
    name: e.manifest.name,
    source: e.source,
    file: e.file,
    installed: e.installed,
    identity: e.identity,
    command: e.manifest.loginShell ? null : (e.manifest.command ?? null),
    resolvedCommand: e.resolvedCommand ?? null,
    install: e.manifest.install ?? null,
    resumeFamily: e.resumeFamily,
    statusChannels: e.statusChannels,
    disabled: e.disabled,
    wire: e.manifest.wire ?? e.id,
    skills: e.manifest.skills ?? null,
    order: e.manifest.order ?? null,
    icon: e.iconFile ?? null,
    overrides: e.overrides ?? null,
    // Bundled agents only: the releases the matrix ran, or null (not verified here).
    verified: e.verified !== undefined ? e.verified && { package: e.verified.package, releases: e.verified.releases, failed: e.verified.failed } : undefined,
    warnings: e.warnings,
    errors: e.errors,
  };
}

/** yes; no, with the install page; or no: another program of the command's name is there. */
function installedText(e: CatalogEntry): string {
  if (e.installed) return 'yes';
  const install = e.manifest.install ? ` (${e.manifest.install})` : '';
  if (e.identity.state === 'other') return `no: ${unavailableNote(e)} at ${homeLabel(e.resolvedCommand ?? '')}${install}`;
  return `no${install}`;
}

function problemJson(p: CatalogProblem) {
  return { file: p.file, source: p.source, errors: p.errors, warnings: p.warnings };
}

function formatTable(entries: CatalogEntry[]): string {
  const header = ['ID', 'NAME', 'INSTALLED', 'RESUME', 'STATUS', 'OFF', 'VERIFIED', 'SOURCE'];
  const rows = entries.map((e) => [
    e.id,
    e.manifest.name,
    installedText(e),
    e.resumeFamily,
    e.statusChannels.join(',') || '-',
    e.disabled.length ? e.disabled.map((d) => `${d.feature} off`).join(', ') : '-',
    verifiedNote(e.verified) ?? '-',
    `${e.source === 'user' ? (e.overrides ? 'user, overrides bundled' : 'user') : 'bundled'}: ${e.label}${e.errors.length ? ' (broken; last good version)' : ''}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}
