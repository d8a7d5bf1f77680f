// End to end: a smoke bench of two real contenders produces result files, run metadata and a
// leaderboard; `new` makes a contender that verifies at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES, readCells, readMetas, ROOT, runCli, tmpDir } from '../helpers.ts';
import { listRuns } from '../../harness/store/runs.ts';

test('smoke bench of node-http and fastify → 12 cells, metadata and a leaderboard', async () => {
  const results = tmpDir('e2e');
  const r = await runCli(['--results-dir', results, 'bench', 'node-http', 'fastify', '--profile', 'smoke']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /\[12\/12\] (node-http|fastify) · fanout · smoke · autocannon · Node 24 · round 1\/1\s+elapsed \dm\d\ds, ETA \dm\d\ds/,
  );
  assert.doesNotMatch(r.stderr, /also measuring/, 'node-http, the baseline, was asked for');
  assert.match(
    r.stderr,
    /harness overhead per cell \(start \+ verify \+ teardown\): median \d+ ms, max \d+ ms over 12 cells/,
  );
  assert.match(r.stderr, /finished: 12 cells recorded in \dm\d\ds wall time/);

  const cells = readCells(results);
  assert.equal(cells.length, 12);
  for (const c of cells) {
    assert.equal(c.status, 'ok', `${c.cellId}: ${JSON.stringify(c.failure ?? c.verification)}`);
    assert.equal(c.verification.level, 'pass');
    assert.match(c.node.version, /^v24\./);
    assert.ok(c.load.requests.total > 0);
    assert.ok(c.load.requestsPerSec.mean > 0 && c.load.requestsPerSec.samples.length >= 1);
    assert.ok(
      c.load.latencyMs.p50 > 0 &&
        c.load.latencyMs.p50 <= c.load.latencyMs.p90 &&
        c.load.latencyMs.p90 <= c.load.latencyMs.p99 &&
        c.load.latencyMs.p99 <= c.load.latencyMs.max,
      `${c.cellId}: ${JSON.stringify(c.load.latencyMs)}`,
    );
    assert.ok(c.load.bodyChecks.sampled > 0);
    assert.equal(c.load.bodyChecks.mismatched, 0);
    assert.ok(c.startupMs > 0 && c.overheadMs.total >= c.overheadMs.start);
    assert.equal(typeof c.cpuPlan.pinned, 'boolean');
    assert.ok(fs.existsSync(path.join(results, c.logFile)), 'the server log is kept beside the results');
    assert.equal(c.burst.failed, 0, 'the concurrency burst checked every response');
    assert.ok(c.burst.requests >= 2000);
  }
  const [meta] = readMetas(results);
  assert.equal(meta.state, 'complete');
  assert.equal(meta.profile, 'smoke');
  assert.ok(meta.machine.cores >= 1 && meta.machine.memoryBytes > 0 && meta.machine.cpuModel);
  assert.match(meta.node.version, /^v24\./);
  assert.match(meta.packages.fastify.fastify, /^5\.\d+\.\d+$/);
  assert.match(meta.packages['node-http'].undici, /^\d+\.\d+\.\d+$/);
  assert.ok('commit' in meta.git);

  const board = await runCli(['--results-dir', results, 'leaderboard', '--details']);
  assert.equal(board.code, 0, board.stderr);
  const md = fs.readFileSync(path.join(results, 'LEADERBOARD.md'), 'utf8');
  assert.match(md, /^# Leaderboard/);
  assert.match(md, /\*\*Machine:\*\* .+ cores/);
  const issuesAt = md.indexOf('## Findings');
  assert.ok(issuesAt > 0, 'the leaderboard has a Findings section');
  const issues = md.slice(
    issuesAt,
    md.indexOf('\n## ', issuesAt + 5) > 0 ? md.indexOf('\n## ', issuesAt + 5) : undefined,
  );
  assert.doesNotMatch(issues, /\*\*(critical|major)\*\*/, 'healthy contenders have no critical or major findings');
  assert.match(
    issues,
    /Leaks: the leak rule judged 0 of 12 measured cells/,
    'one smoke round per server: no leak judged',
  );
  for (const s of ['ping', 'json', 'echo', 'users', 'post', 'fanout'])
    assert.match(md, new RegExp(`${s} · smoke · autocannon · Node 24`), `a table for ${s}`);
  assert.match(md, /`node-http`[^\n]*100% \(baseline\)/, 'node-http is the baseline of every REST table');
  assert.match(board.stdout, /ping · smoke · autocannon · Node 24/);
});

test('`new` copies the template and the new contender verifies at once', async () => {
  const contenders = tmpDir('new');
  fs.cpSync(path.join(ROOT, 'contenders', '_template'), path.join(contenders, '_template'), { recursive: true });
  const made = await runCli(['--contenders-dir', contenders, 'new', 'my-stack']);
  assert.equal(made.code, 0, made.stderr);
  const manifest = JSON.parse(fs.readFileSync(path.join(contenders, 'my-stack', 'contender.json'), 'utf8'));
  assert.equal(manifest.name, 'my-stack');
  assert.equal(
    JSON.parse(fs.readFileSync(path.join(contenders, 'my-stack', 'package.json'), 'utf8')).name,
    'contender-my-stack',
  );
  const v = await runCli(['--contenders-dir', contenders, 'verify', 'my-stack']);
  assert.equal(v.code, 0, v.stdout + v.stderr);
  assert.equal((v.stdout.match(/^\s+pass\s/gm) ?? []).length, 6);
  const again = await runCli(['--contenders-dir', contenders, 'new', 'my-stack']);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /already exists/);
});

test('`bench x` measures the baseline beside it, unasked, and says so', async () => {
  const results = tmpDir('e2e-baseline');
  const r = await runCli(['--results-dir', results, 'bench', 'hono', '--profile', 'smoke', '--scenario', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /also measuring node-http \(not asked for\): it is the baseline of json/);
  const cells = readCells(results);
  assert.deepEqual(cells.map((c) => c.contender).sort(), ['hono', 'node-http']);
  const [meta] = readMetas(results);
  assert.equal(meta.design.baselines.json, 'node-http');
  assert.equal(meta.harnessPid > 0, true);
});

test("`bench --leaderboard` (what `just bake-off` runs): its own run's report and overview, printed once, an older run beside it as a reference only", async () => {
  const results = tmpDir('e2e-leaderboard');
  const args = ['--results-dir', results, 'bench', 'hono', '--profile', 'smoke', '--scenario', 'json'];
  const first = await runCli(args);
  assert.equal(first.code, 0, first.stderr);
  const [older] = listRuns(results);
  assert.ok(older, 'the first run');
  const r = await runCli([...args, '--leaderboard']);
  assert.equal(r.code, 0, r.stderr);
  const runs = listRuns(results).map((x) => x.runId);
  const mine = runs.find((id) => id !== older.runId);
  assert.ok(mine, `a second run: ${runs}`);
  assert.equal((r.stdout.match(/^Overview \(/gm) ?? []).length, 1, r.stdout);
  assert.match(r.stdout, /^ {2}Resolution: /m);
  // The run's own report, not the all-runs one (which `npx just leaderboard` writes).
  const dir = path.join(results, 'reports', mine);
  assert.match(r.stdout, new RegExp(`wrote ${dir}/LEADERBOARD\\.md\\s+and ${dir}/leaderboard\\.html`));
  assert.ok(fs.existsSync(path.join(dir, 'LEADERBOARD.md')) && fs.existsSync(path.join(dir, 'leaderboard.html')));
  assert.ok(!fs.existsSync(path.join(results, 'LEADERBOARD.md')), 'the all-runs report is left alone');
  // The older run is named once, as a reference, "there → here", never in the run's tables (the
  // terminal's answer names it only in its one reference line, when the run ranks a scenario).
  const md = fs.readFileSync(path.join(dir, 'LEADERBOARD.md'), 'utf8');
  assert.match(md, /### Reference run/);
  assert.match(md, new RegExp(`Reference, not this run: \`?${older.runId}\`? \\(a machine like this run’s`));
  assert.match(md, /hono[^\n]*\d+ → \d+/);
  const tables =
    md.slice(0, md.indexOf('### Reference run')) + md.slice(md.indexOf('## ', md.indexOf('### Reference run') + 5));
  assert.doesNotMatch(
    tables.replace(/Reference, not this run: `[^`]+`/, ''),
    new RegExp(older.runId),
    'the reference run is in no table',
  );
  // The closing line: this run, its time, its machine, its median MDD (none in smoke) and its report.
  // (wrapped to the terminal's width: continuation lines are indented)
  assert.match(
    r.stdout.replace(/\n {2}/g, ' '),
    new RegExp(`This run: ${mine}, 2 cells in \\d+m\\d+s on [^;]+; [^;]+; its report: ${dir}/leaderboard\\.html`),
  );
});

test('the concurrency burst fails a POST that hangs on keep-alive and a body wrong 1 in 200 times', async () => {
  const contenders = tmpDir('e2e-burst-contenders');
  fs.cpSync(path.join(FIXTURES, 'hanging-post'), path.join(contenders, 'hanging-post'), { recursive: true });
  fs.cpSync(path.join(ROOT, 'test', 'fixtures', 'sched', 'rare-wrong'), path.join(contenders, 'rare-wrong'), {
    recursive: true,
  });
  const results = tmpDir('e2e-burst');
  const r = await runCli([
    '--results-dir',
    results,
    '--contenders-dir',
    contenders,
    'bench',
    'hanging-post',
    'rare-wrong',
    '--profile',
    'smoke',
    '--scenario',
    'json,post',
  ]);
  assert.equal(r.code, 1, `a verification failure exits 1\n${r.stderr}`);
  const by = Object.fromEntries(readCells(results).map((c) => [`${c.contender}·${c.scenario}`, c]));
  assert.equal(by['hanging-post·json'].status, 'ok');
  assert.equal(by['hanging-post·post'].status, 'verify-failed');
  assert.match(
    by['hanging-post·post'].failure.reason,
    /concurrency burst \(smoke\): POST \/data: no response within \d+ ms/,
  );
  assert.equal(by['hanging-post·post'].load, null, 'not measured');
  assert.equal(by['rare-wrong·json'].status, 'verify-failed');
  assert.match(by['rare-wrong·json'].failure.reason, /concurrency burst \(smoke\): GET \/json: .*Hello, Wrong!/);
  assert.ok(by['rare-wrong·json'].burst.failed >= 1);
});
