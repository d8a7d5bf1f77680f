/**
 * `just why` end to end (issue 25): real servers under the real CPU profiler, the real driver,
 * the real store. Fixture contenders in a temp contenders folder: `burner` (node:http whose
 * GET /ping spins 400 µs inside `node_modules/burn-pkg`), `burner-sh` (the same server started
 * through `sh -c`, so --cpu-prof cannot be injected: "no profile: …"), and `node-http` (the same
 * server without the burn; the ping baseline, which `why` adds itself). Checks: the stored attribution (through
 * store/why-store.ts) has one profiled cell per server whose shares and ns per request add up,
 * the burn goes to `burn-pkg`, the difference from the baseline adds up exactly with the
 * remainder, the unprofiled cell says why, the raw profile lies under the git-ignored logs
 * folder, each profiled cell has its committed flame graph (folded stacks) with the burn under
 * `[burn-pkg] burnA`, and the Markdown report carries the Why section with a finding.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { readFolded } from '../../harness/store/flame-store.ts';
import { readAllWhy, whyResultsDir } from '../../harness/store/why-store.ts';
import { ROOT, runCli, tmpDir } from '../helpers.ts';

const BURN_US = 400;

const server = (burnUs: number) => `import http from 'node:http';
import burnPkg from './node_modules/burn-pkg/index.js';
http
  .createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/ping') {
      if (${burnUs} > 0) burnPkg.burnA(${burnUs / 1000});
      return res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': 4 }).end('pong');
    }
    res.writeHead(404, { 'content-length': 0 }).end();
  })
  .listen(Number(process.env.PORT), process.env.HOST);
`;

/** test/integration/cpu-profile.test.ts's pkg-a: a timed busy loop that V8 does not inline into its caller (see its comment). */
const BURN = fs.readFileSync(
  path.join(ROOT, 'test', 'fixtures', 'profile', 'two-burns', 'packages', 'pkg-a', 'index.js'),
);

function contender(dir: string, name: string, start: string[], burnUs = BURN_US) {
  const d = path.join(dir, name);
  fs.mkdirSync(path.join(d, 'node_modules', 'burn-pkg'), { recursive: true });
  fs.writeFileSync(path.join(d, 'server.js'), server(burnUs));
  fs.writeFileSync(path.join(d, 'package.json'), '{ "type": "module", "private": true }\n');
  fs.writeFileSync(path.join(d, 'node_modules', 'burn-pkg', 'index.js'), BURN);
  fs.writeFileSync(path.join(d, 'node_modules', 'burn-pkg', 'package.json'), '{ "type": "commonjs" }\n');
  fs.writeFileSync(
    path.join(d, 'contender.json'),
    JSON.stringify({
      name,
      displayName: `why fixture ${name}`,
      description: 'node:http that burns CPU in node_modules/burn-pkg on GET /ping (test/integration/why.test.ts)',
      tags: { framework: 'node:http', httpClient: 'none', language: 'javascript' },
      scenarios: ['ping'],
      build: null,
      start,
    }),
  );
}

test('just why: profiled window per cell, attribution stored, shares and the difference add up, no profile says why', async (t) => {
  const contenders = tmpDir('why-contenders');
  const results = tmpDir('why-results');
  contender(contenders, 'node-http', ['node', 'server.js'], 0);
  contender(contenders, 'burner', ['node', 'server.js']);
  contender(contenders, 'burner-sh', ['sh', '-c', 'exec node server.js']);
  const r = await runCli([
    '--contenders-dir',
    contenders,
    '--results-dir',
    results,
    'why',
    'burner',
    'burner-sh',
    '--scenario',
    'ping',
    '--profile',
    'quick',
    '--duration',
    '2',
  ]);
  t.diagnostic(r.stdout.slice(-3000));
  assert.equal(r.code, 0, r.stderr.slice(-2000));
  assert.match(r.stdout, /burner vs node-http on ping: \+[\d.]+ µs CPU\/request/);
  // One window per server process: the quick profile's interleaved rounds (and their server
  // restarts) become solo rounds for the profiled driver, which cannot interleave.
  assert.doesNotMatch(`${r.stdout}${r.stderr}`, /interleaved round|restarting \d+ servers/);
  assert.match(r.stdout, /= difference/);

  const { records, warnings } = readAllWhy(results);
  assert.deepEqual(warnings, []);
  assert.equal(records.length, 1);
  const rec = records[0]!;
  const byName = new Map(rec.cells.map((c) => [c.contender, c]));
  assert.deepEqual([...byName.keys()].sort(), ['burner', 'burner-sh', 'node-http']);

  // The sampler check ran on the server's CPU at the run's interval: a probe loop's system call,
  // its share of the loop's time (a few %) and of its samples, printed and stored.
  const check = rec.samplerCheck;
  assert.ok(check?.ok, JSON.stringify(check));
  if (check?.ok) {
    assert.ok(check.timeShare > 0 && check.timeShare < 0.5, `time share ${check.timeShare}`);
    assert.ok(check.samples > 10 && check.sampleShare >= 0 && check.sampleShare <= 1, JSON.stringify(check));
    assert.equal(check.intervalUs, rec.samplingIntervalUs);
  }
  assert.match(
    r.stdout,
    /\nsampler check: a system call with [\d.]+% of a probe loop's time drew [\d.]+% of its samples/,
  );

  const sh = byName.get('burner-sh')!;
  assert.match(sh.noProfile ?? '', /^no profile: the start command of burner-sh is not `node …`/);
  assert.equal(sh.totalNs, null);

  for (const name of ['burner', 'node-http']) {
    const c = byName.get(name)!;
    assert.equal(c.noProfile, null, `${name}: ${c.noProfile}`);
    assert.ok(c.requests > 0 && c.samples > 0);
    assert.equal(c.isBaseline, name === 'node-http');
    const busy = c.buckets.filter((b) => b.bucket !== '(idle)');
    const shares = busy.reduce((s, b) => s + (b.share ?? 0), 0);
    assert.ok(Math.abs(shares - 1) < 1e-9, `${name}: the shares add up to ${shares}`);
    const ns = busy.reduce((s, b) => s + (b.ns ?? 0), 0);
    assert.ok(Math.abs(ns - c.totalNs!) <= busy.length, `${name}: Σ ns ${ns} vs total ${c.totalNs} (rounding only)`);
    assert.ok(Math.abs(c.busyUs + c.idleUs - c.wallUs) < 1e-6);
    // The raw profile is kept beside the run, in its git-ignored logs folder.
    assert.match(c.profileFile ?? '', /^logs\/profiles\/.+\.cpuprofile$/);
    const runDir = path.join(whyResultsDir(results), 'runs', rec.runId);
    assert.ok(fs.existsSync(path.join(runDir, c.profileFile!)));
    const profiles = fs.readdirSync(path.dirname(path.join(runDir, c.profileFile!)));
    assert.equal(
      profiles.filter((f) => f.endsWith('.cpuprofile')).length,
      1,
      `${name}: one server process, one profile`,
    );
    const inRepo = path.join('results', 'why', 'runs', rec.runId, c.profileFile!);
    assert.equal(spawnSync('git', ['check-ignore', '-q', inRepo], { cwd: ROOT }).status, 0, `${inRepo} is git-ignored`);
    // Its flame graph, trimmed folded stacks of the window, is beside why.json and committed (not ignored).
    assert.equal(c.flameFile, `flames/${c.cellId}.folded`);
    const flame = readFolded(path.join(runDir, c.flameFile!));
    assert.ok(flame.ok, flame.ok ? '' : flame.reason);
    assert.ok(Math.abs(flame.totalUs - c.busyUs) <= flame.stacks.length + 1, `${name}: the flame holds the busy time`);
    const flameInRepo = path.join('results', 'why', 'runs', rec.runId, c.flameFile!);
    assert.equal(
      spawnSync('git', ['check-ignore', '-q', flameInRepo], { cwd: ROOT }).status,
      1,
      `${flameInRepo} is committed`,
    );
  }
  assert.equal(byName.get('burner-sh')!.flameFile, null, 'no profile, no flame graph');

  // The burn (a timed busy loop of 400 µs per request) is burn-pkg's, and burner's largest bucket.
  const burner = byName.get('burner')!;
  const top = burner.buckets.find((b) => b.bucket !== '(idle)')!;
  assert.equal(top.bucket, 'burn-pkg');
  assert.equal(top.kind, 'package');
  assert.equal(burner.cpuSource, 'proc', 'CPU per request from /proc, shared out by the profile');
  assert.ok(top.share! > 0.5, `burn-pkg holds most of burner's busy time (${top.share})`);
  // A burn timed by the wall clock costs at most its length in CPU (less when the server is
  // preempted mid-burn on a shared machine), and more than nothing.
  assert.ok(
    top.ns! > 0.2 * BURN_US * 1000 && top.ns! <= 1.2 * BURN_US * 1000,
    `burn-pkg: ${top.ns} ns/request for a ${BURN_US} µs burn`,
  );

  // burner − node-http: the parts and the remainder add up to the measured difference, exactly.
  assert.equal(rec.diffs.length, 1);
  const d = rec.diffs[0]!;
  assert.equal(d.a, burner.cellId);
  assert.equal(d.b, byName.get('node-http')!.cellId);
  assert.equal(d.diffNs, d.aTotalNs - d.bTotalNs);
  assert.equal(d.parts.reduce((s, p) => s + p.diffNs, 0) + d.remainderNs, d.diffNs);
  assert.equal(d.parts[0]!.bucket, 'burn-pkg');

  // burner's flame graph: the burn under the handler, as `[burn-pkg] burnA index.js:<line>`.
  const burnerFlame = readFolded(path.join(whyResultsDir(results), 'runs', rec.runId, burner.flameFile!));
  assert.ok(
    burnerFlame.ok && burnerFlame.stacks.some((s) => /^\[burn-pkg\] burnA index\.js:\d+$/.test(s.frames.at(-1) ?? '')),
  );

  // The report: a Why section with the finding naming burn-pkg.
  const md = await runCli(['--results-dir', results, 'export', '--format', 'md']);
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stdout, /## Why \(CPU profiles\)/);
  assert.match(md.stdout, new RegExp(`Why run \`${rec.runId}\`, sampler check: a system call with`));
  assert.match(
    md.stdout,
    new RegExp(
      `burner on ping uses [\\d.]+× the CPU per request of node-http .*burn-pkg \\+[\\d.]+.*why run ${rec.runId}`,
    ),
  );
});

test('bench --profile-cpu: the ranked run is untouched; after its group, one profiled window per cell, stored as a why run that names it', async (t) => {
  const contenders = tmpDir('why-pc-contenders');
  const results = tmpDir('why-pc-results');
  contender(contenders, 'node-http', ['node', 'server.js'], 0);
  contender(contenders, 'burner', ['node', 'server.js']);
  const base = ['--contenders-dir', contenders, '--results-dir', results, 'bench', 'burner', '--scenario', 'ping'];
  // Option errors first: exit 2 before any server.
  for (const [extra, re] of [
    [['--profile-cpu', '--url', 'http://127.0.0.1:9'], /--profile-cpu cannot be combined with --url/],
    [['--profile-cpu', '--json'], /--profile-cpu cannot be combined with --json/],
    [['--profile-cpu', '--profile', 'capacity'], /capacity profile/],
    [['--interval', '1000'], /--interval sets the sampling of --profile-cpu/],
  ] as const) {
    const bad = await runCli([...base, ...extra]);
    assert.equal(bad.code, 2, `${extra.join(' ')}: ${bad.stderr}`);
    assert.match(bad.stderr, re);
  }
  assert.equal(fs.existsSync(path.join(results, 'runs')), false, 'no run folder after an option error');

  const r = await runCli([
    ...base,
    '--profile',
    'quick',
    '--duration',
    '1',
    '--rounds',
    '1',
    '--no-fidelity',
    '--profile-cpu',
  ]);
  t.diagnostic(r.stdout.slice(-2500));
  assert.equal(r.code, 0, r.stderr.slice(-2000));
  const rankedIds = fs.readdirSync(path.join(results, 'runs'));
  assert.equal(rankedIds.length, 1, 'one ranked run');
  const rankedId = rankedIds[0]!;
  const rankedDir = path.join(results, 'runs', rankedId);
  const before = fs.readdirSync(path.join(rankedDir, 'cells')).sort();
  assert.deepEqual(
    before.map((f) => f.split('__')[0]),
    ['burner', 'node-http'],
    'the ranked run holds its two cells only',
  );
  assert.match(
    r.stdout,
    new RegExp(
      `--profile-cpu: one window per cell under V8's CPU profiler after each group's ranked windows of run ${rankedId}`,
    ),
  );
  const { records, warnings } = readAllWhy(results);
  assert.deepEqual(warnings, []);
  assert.equal(records.length, 1);
  const rec = records[0]!;
  assert.equal(rec.rankedRunId, rankedId);
  assert.notEqual(rec.runId, rankedId);
  // Like a why run, the profiled windows carry the sampler check at their interval.
  assert.ok(rec.samplerCheck?.ok, JSON.stringify(rec.samplerCheck));
  if (rec.samplerCheck?.ok) assert.equal(rec.samplerCheck.intervalUs, rec.samplingIntervalUs);
  assert.match(
    r.stdout,
    /\nsampler check: a system call with [\d.]+% of a probe loop's time drew [\d.]+% of its samples/,
  );
  assert.deepEqual(rec.cells.map((c) => c.contender).sort(), ['burner', 'node-http']);
  for (const c of rec.cells) {
    assert.equal(c.noProfile, null, `${c.contender}: ${c.noProfile}`);
    assert.ok(c.flameFile && readFolded(path.join(whyResultsDir(results), 'runs', rec.runId, c.flameFile)).ok);
  }
  assert.equal(rec.diffs[0]?.parts[0]?.bucket, 'burn-pkg');
  // The profiled windows are not in the leaderboard's runs: the ranked cells are the ranked run's own.
  assert.deepEqual(fs.readdirSync(path.join(results, 'runs')), [rankedId]);
  const cells = fs
    .readdirSync(path.join(rankedDir, 'cells'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(rankedDir, 'cells', f), 'utf8')));
  assert.ok(cells.every((c) => c.runId === rankedId && c.status === 'ok'));
});
