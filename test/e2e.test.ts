// End to end: a smoke bench of two real contenders produces result files, run metadata and a
// leaderboard; `new` makes a contender that verifies at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readCells, readMetas, ROOT, runCli, tmpDir } from './helpers.ts';

test('smoke bench of node-http and fastify → 12 cells, metadata and a leaderboard', async () => {
  const results = tmpDir('e2e');
  const r = await runCli(['--results-dir', results, 'bench', 'node-http', 'fastify', '--profile', 'smoke']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /\[12\/12\] fastify · fanout · smoke · Node 24\s+elapsed \dm\d\ds, ETA \dm\d\ds/);
  assert.match(
    r.stderr,
    /harness overhead per cell \(start \+ verify \+ teardown\): median \d+ ms, max \d+ ms over 12 cells/,
  );

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
    );
    assert.ok(c.load.bodyChecks.sampled > 0);
    assert.equal(c.load.bodyChecks.mismatched, 0);
    assert.ok(c.startupMs > 0 && c.overheadMs.total >= c.overheadMs.start);
    assert.equal(typeof c.cpuPlan.pinned, 'boolean');
    assert.ok(fs.existsSync(path.join(results, c.logFile)), 'the server log is kept beside the results');
  }
  const [meta] = readMetas(results);
  assert.equal(meta.state, 'complete');
  assert.equal(meta.profile, 'smoke');
  assert.ok(meta.machine.cores >= 1 && meta.machine.memoryBytes > 0 && meta.machine.cpuModel);
  assert.match(meta.node.version, /^v24\./);
  assert.match(meta.packages.fastify.fastify, /^5\.\d+\.\d+$/);
  assert.match(meta.packages['node-http'].undici, /^\d+\.\d+\.\d+$/);
  assert.ok('commit' in meta.git);

  const board = await runCli(['--results-dir', results, 'leaderboard']);
  assert.equal(board.code, 0, board.stderr);
  const md = fs.readFileSync(path.join(results, 'LEADERBOARD.md'), 'utf8');
  assert.match(md, /^# Leaderboard/);
  assert.match(md, /\*\*Machine:\*\* .+ cores/);
  const issues = md.slice(md.indexOf('## Issues found'), md.indexOf('## Seed claims'));
  assert.doesNotMatch(
    issues,
    /\*\*(critical|major)\*\*/,
    'healthy contenders have no critical or major findings (a client-bound note may appear on 2 cores)',
  );
  for (const s of ['ping', 'json', 'echo', 'users', 'post', 'fanout']) {
    assert.match(
      md,
      new RegExp(
        `## ${s} · smoke · autocannon · Node 24\\n\\n\`[\\w-]+\` ran [^\\n]*\\.\\n\\n\\| rank \\| contender \\| requests/s \\(95% CI\\) \\| p50 \\(ms\\) \\| p99 \\(ms\\) \\| errors \\| % of node-http \\(95% CI\\) \\| server CPU % \\| RSS peak \\(MiB\\)`,
      ),
    );
  }
  assert.match(
    md,
    /\| 1 \| node-http \| [\d,]+ \([\d,]+–[\d,]+\) \| [\d.]+ \| [\d.]+ \| 0 \| 100% \| \d+ \| \d+ \| [\d,]+ \| \d+ \|/,
  );
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
