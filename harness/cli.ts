/**
 * The harness CLI (the justfile calls it; it also works on its own):
 *   node harness/cli.ts bench <contender...> [--scenario s] [--profile p]
 *   node harness/cli.ts bench-all [--profile p]
 *   node harness/cli.ts leaderboard | verify [contender...] | list | new <name>
 * Run it with the pinned Node from node_modules (`npx just …` does). Exit codes: 0 ok,
 * 1 a check failed (verify), 2 bad input (UserError), 130 interrupted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { CONTENDERS_DIR, RESULTS_DIR, SCENARIOS_DIR } from './core/paths.ts';
import { UserError } from './core/errors.ts';
import { loadManifests, MANIFEST_FILE, type Manifest } from './core/manifest.ts';
import { loadScenarios, loadSharedSchemas, type Scenario } from './contract/scenarios.ts';
import { ContractChecker, verifyScenario, type Verdict } from './contract/verify.ts';
import {
  DEFAULT_PROFILE,
  getProfile,
  measuredSeconds,
  PROFILES,
  withOverrides,
  type Profile,
} from './core/profiles.ts';
import { parseMajors, resolveNode } from './lifecycle/node-runtime.ts';
import { findK6, K6_VERSION } from './drivers/k6.ts';
import { openDatabase } from './services/database.ts';
import { planCells, selectContenders, selectScenarios } from './scheduler/plan.ts';
import { runPlan } from './scheduler/run.ts';
import { readAllResults, writeJsonAtomic } from './store/results.ts';
import { latestCells, renderMarkdown, renderTerminal } from './report/leaderboard.ts';
import { compareRuns, readRun, renderComparison, saveBaseline } from './report/compare.ts';
import { exportCsv, exportJson } from './report/export.ts';
import { renderHtml } from './report/html.ts';
import { freePort } from './lifecycle/ports.ts';
import { killAllSync, stopAll } from './lifecycle/processes.ts';
import { startServer, StartError } from './lifecycle/server.ts';
import { buildContender } from './lifecycle/build.ts';
import { makeCpuPlan } from './lifecycle/cpu-plan.ts';
import { startUpstream } from './services/upstream.ts';
import writeFileAtomic from 'write-file-atomic';

const interrupt = new AbortController();
let signals = 0;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    signals++;
    process.stderr.write(`\n${sig}: stopping every process the harness started; finished cells stay saved.\n`);
    interrupt.abort();
    if (signals > 1) {
      killAllSync();
      process.exit(130);
    }
    void stopAll(1500).then(() =>
      setTimeout(() => {
        killAllSync();
        process.exit(130);
      }, 3000).unref(),
    );
  });
}
process.on('exit', killAllSync);

interface Globals {
  contendersDir: string;
  resultsDir: string;
  scenariosDir: string;
}

function list(v: string, prev: string[] = []): string[] {
  return [
    ...prev,
    ...v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  ];
}

function load(g: Globals): { scenarios: Scenario[]; manifests: Manifest[] } {
  const scenarios = loadScenarios(g.scenariosDir);
  return {
    scenarios,
    manifests: loadManifests(
      g.contendersDir,
      scenarios.map((s) => s.name),
    ),
  };
}

function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 65535)
    throw new UserError(`--port must be an integer from 1 to 65535, got '${v}'`);
  return n;
}

interface BenchOpts {
  scenario?: string[];
  profile: string;
  port?: number;
  host: string;
  upstreamDelay: string;
  variants: boolean;
  node?: string;
  duration?: string;
  vus?: string;
  rate?: string;
  url?: string;
  trials?: string;
  seed?: string;
  crossCheck?: string | boolean;
}

async function bench(g: Globals, names: string[], opts: BenchOpts, command: string[]) {
  const profile = withOverrides(getProfile(opts.profile), opts);
  const { scenarios, manifests } = load(g);
  let chosen = selectContenders(manifests, names);
  if (opts.url) {
    if (chosen.length !== 1)
      throw new UserError(
        '--url benches one contender: name exactly one (e.g. `just bench hasura --url http://127.0.0.1:18090`)',
      );
    let u: URL;
    try {
      u = new URL(opts.url);
    } catch {
      throw new UserError(`--url must be an http URL like http://127.0.0.1:18080, got '${opts.url}'`);
    }
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname))
      throw new UserError(
        `--url must point at this machine (127.0.0.1, localhost or [::1]); load tests never leave it. Got ${u.hostname}`,
      );
  } else {
    const composeOnly = chosen.filter((m) => m.composeOnly);
    if (names.length && composeOnly.length) {
      const m = composeOnly[0];
      throw new UserError(
        `${m.name} runs only under Docker Compose (no npm distribution). Start it with \`npx just compose-up ${m.name}\`, then bench it with \`npx just bench ${m.name} --url http://127.0.0.1:<port>\` (ports: compose/README.md).`,
      );
    }
    if (composeOnly.length)
      process.stderr.write(
        `skipping compose-only contender(s) ${composeOnly.map((m) => m.name).join(', ')}: bench them with --url (see compose/README.md)\n`,
      );
    chosen = chosen.filter((m) => !m.composeOnly);
  }
  const scen = selectScenarios(scenarios, opts.scenario ?? []);
  const majors = opts.node ? parseMajors(opts.node) : [Number(process.versions.node.split('.')[0])];
  const nodes = majors.map((major) => resolveNode(major, (l) => process.stderr.write(`${l}\n`)));
  const cells = planCells(chosen, scen, profile, nodes, opts.variants);
  if (!cells.length)
    throw new UserError(
      `nothing to run: ${chosen.map((m) => m.name).join(', ') || 'no contender'} support(s) none of ${scen.map((s) => s.name).join(', ')}`,
    );
  const delay = Number(opts.upstreamDelay);
  if (!Number.isFinite(delay) || delay < 0)
    throw new UserError(`--upstream-delay must be a number of ms ≥ 0, got '${opts.upstreamDelay}'`);
  const trials = opts.trials === undefined ? (profile.trials ?? 1) : Number(opts.trials);
  if (!Number.isInteger(trials) || trials < 1 || trials > 50)
    throw new UserError(`--trials must be an integer from 1 to 50, got '${opts.trials}'`);
  const seed = opts.seed === undefined ? undefined : Number(opts.seed);
  if (seed !== undefined && !Number.isInteger(seed))
    throw new UserError(`--seed must be an integer, got '${opts.seed}'`);
  let crossCheckS: number | undefined;
  if (opts.crossCheck === false) crossCheckS = 0;
  else if (typeof opts.crossCheck === 'string') {
    crossCheckS = Number(opts.crossCheck);
    if (!Number.isFinite(crossCheckS) || crossCheckS < 0 || crossCheckS > 60)
      throw new UserError(`--cross-check must be seconds from 0 to 60 (0 = off), got '${opts.crossCheck}'`);
  }
  if (crossCheckS && profile.driver !== 'autocannon')
    throw new UserError(`--cross-check compares autocannon with wrk; ${profile.name} is a k6 profile`);
  const summary = await runPlan({
    trials,
    shuffleSeed: seed,
    crossCheckS,
    cells,
    profileName: profile.name,
    resultsDir: g.resultsDir,
    scenariosDir: g.scenariosDir,
    host: opts.host,
    port: opts.port,
    externalUrl: opts.url,
    upstreamDelayMs: delay,
    command,
    signal: interrupt.signal,
  });
  if (summary.interrupted) {
    await stopAll();
    process.exit(130);
  }
  process.stdout.write(
    '\n' +
      renderTerminal(
        summary.cells,
        scenarios.map((s) => s.name),
        PROFILES.map((p) => p.name),
      ),
  );
}

async function verify(g: Globals, names: string[], host: string): Promise<boolean> {
  const { scenarios, manifests } = load(g);
  const chosen = selectContenders(manifests, names);
  const plan = makeCpuPlan();
  const checker = new ContractChecker(loadSharedSchemas(g.scenariosDir));
  const upstream = await startUpstream({ host, cpus: plan.services, delayMs: 0 });
  const needsDb = chosen.some((m) => m.requires.includes('database'));
  const db = needsDb
    ? await openDatabase({
        cpus: plan.services,
        log: (l) => process.stderr.write(`${l}\n`),
        external: false,
        signal: interrupt.signal,
      })
    : undefined;
  const logDir = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'bench-verify-'));
  let allOk = true;
  try {
    for (const m of chosen) {
      if (m.composeOnly) {
        process.stdout.write(
          `${m.name}: compose-only, not started here (verify it with \`npx just bench ${m.name} --url …\`)\n`,
        );
        continue;
      }
      if (m.requires.includes('database') && !db?.ready) {
        allOk = false;
        process.stdout.write(`${m.name}: SKIPPED, needs PostgreSQL: ${db?.error}\n`);
        continue;
      }
      const variants: (string | null)[] = [null, ...Object.keys(m.variants)];
      const build = await buildContender(m, interrupt.signal);
      if (!build.ok) {
        allOk = false;
        process.stdout.write(`${m.name}: BUILD FAILED (${m.build})\n${build.output}\n`);
        continue;
      }
      for (const variant of variants) {
        const label = variant ? `${m.name} +${variant}` : m.name;
        let server: Awaited<ReturnType<typeof startServer>>;
        try {
          server = await startServer(m, {
            host,
            port: await freePort(host),
            upstreamUrl: upstream.url,
            env: {
              ...(variant ? m.variants[variant].env : {}),
              ...(m.requires.includes('database') && db?.url ? { DATABASE_URL: db.url } : {}),
            },
            cpus: plan.server,
            logFile: path.join(logDir, `${label.replace(/\W+/g, '_')}.log`),
            nodePath: process.execPath,
          });
        } catch (e) {
          if (!(e instanceof StartError)) throw e;
          allOk = false;
          process.stdout.write(`${label}: FAILED TO START: ${e.message}\n${e.logTail}\n`);
          continue;
        }
        try {
          process.stdout.write(`${label} (started in ${Math.round(server.startupMs)} ms)\n`);
          for (const s of scenarios.filter((x) => m.scenarios.includes(x.name))) {
            const v: Verdict = await verifyScenario(checker, server.baseUrl, s, {
              graphql: m.graphql,
              firstUsers: db?.firstUsers,
              paths: m.paths,
            });
            if (v.level === 'fail') allOk = false;
            process.stdout.write(
              `  ${v.level.padEnd(4)}  ${s.name}${v.reasons.length ? `: ${v.reasons.join('; ')}` : ''}\n`,
            );
          }
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    await upstream.stop();
    await db?.close();
    fs.rmSync(logDir, { recursive: true, force: true });
  }
  return allOk;
}

function leaderboard(g: Globals): void {
  const { runs, cells, skipped } = readAllResults(g.resultsDir);
  for (const f of skipped) process.stderr.write(`skipped unreadable result file ${f}\n`);
  const scenarioOrder = loadScenarios(g.scenariosDir).map((s) => s.name);
  const profileOrder = PROFILES.map((p) => p.name);
  const file = path.join(g.resultsDir, 'LEADERBOARD.md');
  fs.mkdirSync(g.resultsDir, { recursive: true });
  writeFileAtomic.sync(file, renderMarkdown(cells, runs, scenarioOrder, profileOrder));
  const html = path.join(g.resultsDir, 'leaderboard.html');
  writeFileAtomic.sync(html, renderHtml(cells, runs, scenarioOrder, profileOrder));
  process.stdout.write(renderTerminal(cells, scenarioOrder, profileOrder));
  process.stdout.write(`wrote ${file} and ${html}\n`);
}

function newContender(g: Globals, name: string): void {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name))
    throw new UserError(`contender name '${name}' must be lower-case letters, digits and dashes`);
  const template = path.join(g.contendersDir, '_template');
  const dest = path.join(g.contendersDir, name);
  if (!fs.existsSync(template)) throw new UserError(`no template at ${template}`);
  if (fs.existsSync(dest)) throw new UserError(`${dest} already exists; choose another name`);
  fs.cpSync(template, dest, { recursive: true, filter: (src) => !src.includes(`${path.sep}node_modules`) });
  for (const f of fs.readdirSync(dest, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(dest, f);
    if (fs.statSync(file).isFile()) fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replaceAll('__NAME__', name));
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(dest, MANIFEST_FILE), 'utf8'));
  writeJsonAtomic(path.join(dest, MANIFEST_FILE), manifest);
  process.stdout.write(
    `created ${dest}\nnext: edit server.js and ${MANIFEST_FILE}, then \`npx just verify ${name}\`; run \`npm install\` to add it to package-lock.json before committing.\n`,
  );
}

function describeProfile(p: Profile): string {
  const shape =
    p.driver === 'autocannon'
      ? `${p.connections} connections, pipelining ${p.pipelining}`
      : p.executor === 'ramping-vus'
        ? `ramping-vus to ${Math.max(...p.stages!.map((x) => x.target))} VUs`
        : p.executor === 'constant-vus'
          ? `${p.vus} constant VUs`
          : `constant-arrival-rate (${p.rate}), ≤ ${p.vus} VUs`;
  return `${p.driver}: ${shape}, ${p.warmupS} s warm-up, ${measuredSeconds(p)} s measured`;
}

function listAll(g: Globals): void {
  const { scenarios, manifests } = load(g);
  const out: string[] = ['Contenders:'];
  for (const m of manifests) {
    out.push(
      `  ${m.name.padEnd(24)} ${m.displayName} [${Object.entries(m.tags)
        .map(([k, v]) => `${k}: ${v}`)
        .join(
          ', ',
        )}]${m.composeOnly ? ` — compose-only: \`just compose-up ${m.name}\`, then bench with --url` : ''}${m.requires.length ? ` (requires ${m.requires.join(', ')})` : ''}`,
    );
    for (const [v, spec] of Object.entries(m.variants))
      out.push(`  ${`${m.name} +${v}`.padEnd(24)} variant: ${spec.description}`);
  }
  out.push('', 'Scenarios:');
  for (const s of scenarios)
    out.push(
      `  ${s.name.padEnd(14)} ${s.request.method.padEnd(4)} ${s.request.path.padEnd(24)} ${s.title} (${s.source})`,
    );
  out.push('', 'Profiles:');
  for (const p of PROFILES)
    out.push(
      `  ${p.name.padEnd(14)} ${describeProfile(p)} — ${p.description} (${p.source})${p.name === DEFAULT_PROFILE ? ' [default]' : ''}`,
    );
  process.stdout.write(`${out.join('\n')}\n`);
}

const program = new Command('bench')
  .description('Node.js HTTP stack bake-off harness')
  .addOption(
    new Option('--contenders-dir <dir>', 'contenders folder').env('BENCH_CONTENDERS_DIR').default(CONTENDERS_DIR),
  )
  .addOption(new Option('--results-dir <dir>', 'results folder').env('BENCH_RESULTS_DIR').default(RESULTS_DIR))
  .addOption(
    new Option('--scenarios-dir <dir>', 'scenario contract folder')
      .env('BENCH_SCENARIOS_DIR')
      .default(SCENARIOS_DIR)
      .hideHelp(),
  )
  .showHelpAfterError();

const globals = (): Globals => {
  const o = program.opts();
  return {
    contendersDir: path.resolve(o.contendersDir),
    resultsDir: path.resolve(o.resultsDir),
    scenariosDir: path.resolve(o.scenariosDir),
  };
};

const benchOptions = (c: Command) =>
  c
    .option('-s, --scenario <names>', 'scenario(s), comma-separated or repeated', list)
    .option('-p, --profile <name>', `load profile (${PROFILES.map((p) => p.name).join(', ')})`, DEFAULT_PROFILE)
    .option('--port <port>', 'fixed server port (default: a free port per cell)', parsePort)
    .option('--host <host>', 'address the contenders listen on', '127.0.0.1')
    .option('--upstream-delay <ms>', 'UPSTREAM_DELAY_MS of the upstream mock', '0')
    .option('--no-variants', 'skip manifest variants')
    .option('--node <majors>', 'Node.js majors to run the contenders on, e.g. 22,24,26 (default: the pinned 24)')
    .option('--duration <s>', "override the profile's measured seconds")
    .option('--vus <n>', 'k6 profiles: VUs (k6-vus default 1000)')
    .option('--rate <rps>', "k6-rate: requests/s (default: half the cell's latest autocannon quick requests/s)")
    .option('--trials <n>', "trials per cell, interleaved across contenders (default: the profile's, 1 for quick)")
    .option('--seed <n>', 'seed of the per-round shuffle of interleaved trials (recorded; random by default)')
    .option(
      '--cross-check <s>',
      "seconds per run of the once-per-run autocannon-vs-wrk check on the fastest cell (default: the profile's; 0 = off; needs wrk)",
    )
    .option('--no-cross-check', 'skip the autocannon-vs-wrk driver check')
    .option(
      '--url <url>',
      'bench a server already running on this machine (external target: no start, stop or pinning)',
    );

benchOptions(
  program.command('bench').description('verify and measure one or more contenders').argument('<contender...>'),
).action(async (names: string[], opts) => bench(globals(), names, opts, process.argv.slice(2)));
benchOptions(program.command('bench-all').description('verify and measure every contender')).action(async (opts) =>
  bench(globals(), [], opts, process.argv.slice(2)),
);
program
  .command('leaderboard')
  .description('render results/LEADERBOARD.md and a terminal table from the latest result of every cell')
  .action(() => leaderboard(globals()));
program
  .command('verify')
  .description('contract check only, no load')
  .argument('[contender...]')
  .option('--host <host>', 'listen address', '127.0.0.1')
  .action(async (names: string[], opts) => {
    if (!(await verify(globals(), names, opts.host))) process.exitCode = 1;
  });
program
  .command('tools')
  .description(`build the pinned k6 (v${K6_VERSION}) into .tools/bin when no k6 ≥ ${K6_VERSION} is on PATH`)
  .action(() => {
    const k6 = findK6({ build: true, log: (l) => process.stderr.write(`${l}\n`) });
    if (!k6.bin) throw new UserError(k6.why);
    process.stdout.write(`k6: ${k6.bin}\n`);
  });
program
  .command('compare')
  .description('per cell: improved / regressed / no change between two runs (criterion-style)')
  .argument('[run-a]', 'the old run (id or folder); with --baseline, omit it')
  .argument('[run-b]', 'the new run (default: the latest run)')
  .option('--baseline <name>', 'compare against a saved baseline (just baseline <name>)')
  .option('--threshold <fraction>', 'noise threshold', '0.05')
  .option('--fail-on-regression', 'exit 1 when any cell regressed (for CI)')
  .option('--out <file>', 'also write the report as Markdown')
  .action((runA: string | undefined, runB: string | undefined, opts) => {
    const g = globals();
    const threshold = Number(opts.threshold);
    if (!(threshold >= 0 && threshold < 1))
      throw new UserError(`--threshold must be a fraction such as 0.05, got '${opts.threshold}'`);
    const latest = () => {
      const ids = fs.existsSync(path.join(g.resultsDir, 'runs'))
        ? fs.readdirSync(path.join(g.resultsDir, 'runs')).sort()
        : [];
      if (!ids.length) throw new UserError('no runs yet: run `npx just bench-all` first');
      return ids[ids.length - 1];
    };
    const [oldName, oldRun] = opts.baseline
      ? [`baseline ${opts.baseline}`, readRun(g.resultsDir, opts.baseline, 'baseline')]
      : [runA ?? '', runA ? readRun(g.resultsDir, runA) : undefined];
    if (!oldRun)
      throw new UserError('name the old run (`just compare <run-a> [run-b]`) or a baseline (`--baseline NAME`)');
    const newRef = opts.baseline ? (runA ?? latest()) : (runB ?? latest());
    const cmp = compareRuns(oldName, oldRun.cells, newRef, readRun(g.resultsDir, newRef).cells, threshold);
    const md = renderComparison(cmp);
    process.stdout.write(md);
    if (opts.out) writeFileAtomic.sync(opts.out, md);
    if (opts.failOnRegression && cmp.counts.regressed > 0) process.exitCode = 1;
  });
program
  .command('baseline')
  .description('save a run (default: the latest) as a named baseline for `compare --baseline`')
  .argument('<name>')
  .argument('[run]')
  .action((name: string, run: string | undefined) => {
    const g = globals();
    const ids = fs.existsSync(path.join(g.resultsDir, 'runs'))
      ? fs.readdirSync(path.join(g.resultsDir, 'runs')).sort()
      : [];
    const ref = run ?? ids[ids.length - 1];
    if (!ref) throw new UserError('no runs yet: run `npx just bench-all` first');
    process.stdout.write(`saved ${ref} as baseline '${name}': ${saveBaseline(g.resultsDir, ref, name)}\n`);
  });
program
  .command('export')
  .description('the latest result of every cell as JSON (schema bakeoff-export v1), CSV or Markdown')
  .option('--format <format>', 'json, csv or md', 'json')
  .option('--out <file>', 'write to a file instead of stdout')
  .action((opts) => {
    const g = globals();
    const { runs, cells } = readAllResults(g.resultsDir);
    const latest = latestCells(cells);
    const text =
      opts.format === 'json'
        ? exportJson(latest)
        : opts.format === 'csv'
          ? exportCsv(latest)
          : opts.format === 'md'
            ? renderMarkdown(
                cells,
                runs,
                loadScenarios(g.scenariosDir).map((s) => s.name),
                PROFILES.map((p) => p.name),
              )
            : (() => {
                throw new UserError(`--format must be json, csv or md, got '${opts.format}'`);
              })();
    if (opts.out) writeFileAtomic.sync(opts.out, text);
    else process.stdout.write(text);
  });
program
  .command('list')
  .description('contenders, scenarios and profiles')
  .action(() => listAll(globals()));
program
  .command('new')
  .description('copy contenders/_template to a new contender')
  .argument('<name>')
  .action((name: string) => newContender(globals(), name));

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof UserError) {
    process.stderr.write(`error: ${e.message}\n`);
    await stopAll(500);
    process.exit(e.exitCode);
  }
  throw e;
}
