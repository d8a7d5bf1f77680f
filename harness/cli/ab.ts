/**
 * `ab <contender> --ref <git rev>` (issue "Resolution", item 3): an in-run A/B of two builds of one
 * contender. The contender's folder as it is now (A) and as it was at `--ref` (B, extracted with
 * `git archive` into a temporary folder, named `<contender>-ref`) run as two cells of the same
 * groups, in the `ab` profile: each interleaved round gives both servers the same seconds of the
 * host (scheduler/interleave.ts), 24 rounds per scenario in 12 server processes per build (a
 * restart every 2 rounds: profiles.ts `InterleaveShape.instances`). Per scenario the table model
 * (analysis/table-model.ts) with B as the reference row gives A ÷ B in requests per server
 * CPU-second with its 95% CI, the verdict (faster / slower / equal within 5% / not resolved) and
 * the minimum detectable difference at the measured noise.
 *
 * Exit 1 when A is slower than B in any scenario (a regression: the CI use), else 0; the usual
 * exit codes otherwise (cli.ts). `--env KEY=VALUE` adds environment to A only (e.g. a fixture's
 * planted CPU cost). B shares A's installed dependencies (the repository's node_modules and the
 * contender's own): a ref whose package.json differs is measured with today's packages (said in
 * the output). Runs go to `<results>/ab/runs/`, never into the leaderboard; the record (verdicts,
 * run id, wall time) to `<results>/ab/<run>.json`.
 */
import { writableSubfolder } from '../store/links.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { Command } from 'commander';
import { loadManifest, loadManifests, type Manifest } from '../core/manifest.ts';
import { UserError, unknownName } from '../core/errors.ts';
import { EXIT, EXIT_HELP, exitCodeForStatuses } from '../core/exit-codes.ts';
import { getProfile } from '../core/profiles.ts';
import { ROOT } from '../core/paths.ts';
import { loadScenarios } from '../contract/scenarios.ts';
import { compare, fitTable } from '../analysis/table-model.ts';
import { tableMdd } from '../analysis/table-power.ts';
import { pairedRounds, pairedUnits } from '../analysis/tables.ts';
import { readRun, writeAbRecord } from '../store/runs.ts';
import type { CellResult } from '../store/results.ts';
import { bench, load } from './bench.ts';
import { type CliContext, type Globals, helpFooter, takeMachine, waitOption } from './command-kit.ts';
import { type AbOpts, type BenchOpts, list, parseAbOptions } from './options.ts';
import { selectContenders } from '../scheduler/plan.ts';
import { fmtPct, fmtSignedPct } from '../core/format.ts';

/** One scenario's verdict: A ÷ B with its 95% CI (requests per server CPU-second). */
export interface AbVerdict {
  scenario: string;
  ratio: number;
  ci: [number, number];
  verdict: string;
  /** Minimum detectable difference of A vs B at the measured noise (90% power), as an excess: 0.05 = 5%. */
  mdd: number;
  /** A's interleaved rounds. */
  rounds: number;
  /** Server processes per build the rounds ran in (the model's units when > 1). */
  processes: number;
}

/** `KEY=VALUE` pairs as an object; UserError on a malformed pair. */
export function parseEnvPairs(pairs: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(p);
    if (!m?.[1]) throw new UserError(`--env takes KEY=VALUE, got '${p}'`);
    out[m[1]] = m[2] ?? '';
  }
  return out;
}

/**
 * Extracts contender `m`'s folder at git revision `ref` into `<tmp>/contenders/<name>-ref` (its manifest
 * renamed), with A's node_modules linked in. Throws UserError when `ref` is unknown or the folder
 * did not exist there.
 */
export function extractRef(m: Manifest, ref: string, tmp: string): Manifest {
  const rel = path.relative(ROOT, m.dir);
  if (rel.startsWith('..')) throw new UserError(`ab: ${m.dir} is outside the repository, so git has no history of it`);
  const rev = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (rev.status !== 0) throw new UserError(`ab: '${ref}' is not a git revision of this repository (git rev-parse)`);
  const name = `${m.name}-ref`;
  const dir = path.join(tmp, 'contenders', name);
  fs.mkdirSync(dir, { recursive: true });
  const archive = spawnSync('git', ['archive', '--format=tar', rev.stdout.trim(), rel], {
    cwd: ROOT,
    maxBuffer: 512 * 1024 * 1024,
  });
  if (archive.status !== 0)
    throw new UserError(`ab: ${rel} does not exist at ${ref}: ${archive.stderr.toString().trim()}`);
  const untar = spawnSync('tar', ['-x', '-C', dir, '--strip-components', String(rel.split(path.sep).length)], {
    input: archive.stdout,
  });
  if (untar.status !== 0 || !fs.existsSync(path.join(dir, 'contender.json')))
    throw new UserError(`ab: could not extract ${rel} at ${ref} (tar: ${untar.stderr.toString().trim()})`);
  // B resolves packages as A does: the repository's node_modules, and the contender's own.
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(tmp, 'node_modules'));
  if (fs.existsSync(path.join(m.dir, 'node_modules')))
    fs.symlinkSync(path.join(m.dir, 'node_modules'), path.join(dir, 'node_modules'));
  const file = path.join(dir, 'contender.json');
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.writeFileSync(
    file,
    JSON.stringify({ ...manifest, name, displayName: `${manifest.displayName ?? m.name} (at ${ref})` }, null, 2),
  );
  return loadManifest(dir, m.scenarios);
}

/**
 * The verdict of A (`a`) against B (`b`) in one scenario, from their interleaved rounds; null
 * without ≥ 2 common units. The units are the table model's (analysis/tables.ts `pairedUnits`):
 * each server process's mean when the profile restarts the servers (`ab`: 12 processes of 2
 * rounds), else each round.
 */
export function abVerdict(scenario: string, a: CellResult, b: CellResult): AbVerdict | null {
  const ua = pairedUnits(a);
  const ub = pairedUnits(b);
  const d = [...ua.y].flatMap(([k, x]) => {
    const y = ub.y.get(k);
    return y !== undefined && ua.by === ub.by ? [x - y] : [];
  });
  if (d.length < 2) return null;
  const fit = fitTable({ baseline: 'B', rows: [{ name: 'A', d }] });
  const c = compare(fit, 'A', 'B');
  return {
    scenario,
    ratio: c.ratio,
    ci: c.ci,
    verdict: c.verdict,
    mdd: tableMdd(fit).baseline,
    rounds: pairedRounds(a),
    processes: ua.by === 'process' ? d.length : 1,
  };
}

/** Runs the A/B; returns the exit code (1 on a regression). */
export async function ab(g: Globals, name: string, o: AbOpts, signal: AbortSignal): Promise<number> {
  const t0 = performance.now();
  const scenarios = loadScenarios(g.scenariosDir);
  const all = loadManifests(
    g.contendersDir,
    scenarios.map((s) => s.name),
  );
  const m =
    all.find((x) => x.name === name) ??
    unknownName(
      'contender',
      name,
      all.map((x) => x.name),
    );
  const env = parseEnvPairs(o.env);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ab-'));
  try {
    const refM = extractRef(m, o.ref, tmp);
    const a: Manifest = { ...m, env: { ...m.env, ...env } };
    const own: Globals = { ...g, resultsDir: writableSubfolder(g.resultsDir, 'ab') };
    const opts: BenchOpts = {
      scenario: o.scenario,
      profile: o.profile,
      host: '127.0.0.1',
      upstreamDelayMs: 0,
      variants: false,
      baseline: false,
      fidelityS: 0,
      seed: o.seed,
      quiet: o.quiet,
      // The verdict below is this command's answer; a bake-off overview of A and B would rank them as two contenders.
      overview: false,
    };
    const summary = await bench(
      { ...own, contendersDir: path.dirname(refM.dir) },
      [a.name, refM.name],
      opts,
      ['ab', name, '--ref', o.ref],
      signal,
      [a],
    );
    if (signal.aborted || summary.interrupted) return EXIT.interrupted;
    const run = readRun(own.resultsDir, summary.runId, 'run', true);
    const verdicts = scenarios.flatMap((s) => {
      const ca = run.cells.find((c) => c.scenario === s.name && c.contender === a.name);
      const cb = run.cells.find((c) => c.scenario === s.name && c.contender === refM.name);
      const v = ca && cb ? abVerdict(s.name, ca, cb) : null;
      return v ? [v] : [];
    });
    const regressed = verdicts.filter((v) => v.verdict === 'slower');
    const record = {
      kind: 'bakeoff-ab',
      version: 1,
      at: new Date().toISOString(),
      contender: name,
      ref: o.ref,
      env,
      profile: o.profile,
      run: run.meta.runId,
      figure: 'A ÷ B in requests per server CPU-second, interleaved rounds, table model (95% CI)',
      verdicts,
      regression: regressed.length > 0,
      wallMs: Math.round(performance.now() - t0),
    };
    const file = writeAbRecord(g.resultsDir, run.meta.runId, record);
    process.stdout.write(abText(name, o.ref, verdicts, record.wallMs, file, run.meta.runId));
    return regressed.length ? EXIT.failed : exitCodeForStatuses(summary.cells.map((c) => c.status));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The A/B's closing text: one line per scenario and the overall verdict. */
function abText(name: string, ref: string, vs: AbVerdict[], wallMs: number, file: string, runId: string): string {
  const lines = [
    '',
    `A/B of ${name}: now (A) vs ${ref} (B), requests per server CPU-second, interleaved in one run (${runId})`,
    ...vs.map(
      (v) =>
        `  ${v.scenario.padEnd(10)} A ÷ B ${v.ratio.toFixed(3)} (95% CI ${v.ci[0].toFixed(3)}–${v.ci[1].toFixed(3)}) ${fmtSignedPct(v.ratio - 1).padStart(7)}  ${v.verdict.padEnd(16)} resolves ±${fmtPct(v.mdd, 1)} (${v.rounds} rounds${v.processes > 1 ? ` in ${v.processes} server processes each` : ''})`,
    ),
    vs.some((v) => v.verdict === 'slower')
      ? `REGRESSION: A is slower in ${vs
          .filter((v) => v.verdict === 'slower')
          .map((v) => v.scenario)
          .join(', ')} (exit 1)`
      : 'no regression (exit 0)',
    `wall time ${Math.round(wallMs / 1000)} s; record: ${file}`,
    'Two separate runs compared with `just compare` are the weaker design: the host drifts between them.',
  ];
  return `${lines.join('\n')}\n`;
}

/** Registers `ab <contender> --ref <rev>` on `program`: options parsed, names and profile checked before the machine lock, then ab(). */
export function registerAb(program: Command, ctx: CliContext): void {
  const c = program
    .command('ab')
    .description(
      'an in-run A/B of two builds of one contender: its folder now (A) and at --ref (B, from git) interleaved in one run, A ÷ B per scenario with its 95% CI; exit 1 when A is slower (a regression)',
    )
    .argument('<contender>')
    .requiredOption('--ref <rev>', 'the git revision of B (a commit, tag or branch)')
    .option('-s, --scenario <names>', 'scenarios (default: every scenario the contender supports)', list)
    .option('-p, --profile <name>', 'load profile (default ab: 24 interleaved rounds)', 'ab')
    .option('--env <KEY=VALUE...>', "environment added to A only (e.g. a fixture's planted cost)")
    .option('--seed <n>', 'shuffle seed (recorded)')
    .option('-q, --quiet', 'no progress lines or notes');
  waitOption(c).action(async (name: string, raw: Record<string, unknown>) => {
    const g = ctx.globals();
    const opts = parseAbOptions(raw);
    selectContenders(load(g).manifests, [name]);
    const profile = getProfile(opts.profile);
    await takeMachine({ driverProfile: profile, wait: opts.wait, command: ctx.argv });
    process.exitCode = await ab(g, name, opts, ctx.signal);
  });
  helpFooter(
    c,
    [
      'npx just ab fastify --ref HEAD~1',
      'npx just ab express --ref main --scenario json,post',
      'npx just ab selftest-burn --ref HEAD --contenders-dir contenders/_selftest --env BURN_US=1',
    ],
    EXIT_HELP,
  );
}
