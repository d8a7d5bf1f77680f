// `export` and `leaderboard --run` and `compare --format json` through the real CLI, over a
// results folder written with the store's own writer (store/runs.ts openRun): schema
// bakeoff-export v2 (machine metadata on every row, p50/p90/p95/p99/p99.9, rounded numbers,
// intervals that contain their figures), CSV with the same columns, one run with --run, a usage
// error naming the known runs, and the comparison as JSON (schema bakeoff-compare v1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openRun } from '../../harness/store/runs.ts';
import { CSV_COLUMNS } from '../../harness/report/exporters/csv.ts';
import { reportSnapshot } from '../report-fixture.ts';
import { runCli, tmpDir } from '../helpers.ts';

const OLD = '2026-11-21T00-00-00Z-aaaa';
const NEW = '2026-11-22T00-00-00Z-bbbb';

/** A results folder with the fixture's two runs (r1 → OLD, r2 → NEW), both complete. */
function resultsDir(): string {
  const dir = tmpDir('export');
  const ids: Record<string, string> = { r1: OLD, r2: NEW };
  for (const run of reportSnapshot().runs) {
    const { schemaVersion: _v, runId, startedAt: _s, finishedAt: _f, state: _st, harnessPid: _p, ...init } = run.meta;
    const w = openRun(dir, init, ids[runId]);
    for (const c of run.cells) w.writeCell({ ...c, runId: ids[runId]! });
    w.finish('complete');
  }
  return dir;
}

const cli = (dir: string, ...args: string[]) => runCli(['--results-dir', dir, ...args]);

test('export --format json: schema v2, machine metadata and five percentiles per row, rounded, --run', async () => {
  const dir = resultsDir();
  const r = await cli(dir, 'export', '--format', 'json');
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.schema, 'bakeoff-export');
  assert.equal(doc.version, 2);
  assert.deepEqual(
    doc.runs.map((x: { run_id: string }) => x.run_id),
    [OLD, NEW],
  );
  assert.ok(doc.rows.length >= 14, `${doc.rows.length} rows`);
  for (const row of doc.rows) {
    for (const k of ['run_id', 'commit', 'cpu_model', 'cores', 'memory_gib', 'os', 'arch', 'node_version'])
      assert.ok(row[k] !== undefined && row[k] !== '', `${k} on ${row.cell_id}`);
    for (const k of ['p50_ms', 'p90_ms', 'p95_ms', 'p99_ms', 'p999_ms']) assert.ok(k in row, k);
    if (row.rps !== null) {
      assert.ok(Number.isInteger(row.rps), `requests/s rounded to an integer: ${row.rps}`);
      assert.ok(
        row.rps_low <= row.rps && row.rps <= row.rps_high,
        `${row.cell_id}: ${row.rps_low} ≤ ${row.rps} ≤ ${row.rps_high}`,
      );
      assert.match(row.rps_interval, /^(95% CI|range \(\d trials\)|none)$/);
    }
    if (row.pct_low !== null) assert.ok(row.pct_low <= row.pct_of_baseline && row.pct_of_baseline <= row.pct_high);
    for (const k of ['p50_ms', 'p90_ms', 'p95_ms', 'p99_ms', 'p999_ms'])
      if (row[k] !== null) assert.equal(Number(row[k].toPrecision(3)), row[k], `${k} to 3 significant digits`);
    assert.doesNotMatch(JSON.stringify(row), /\d\.\d{5,}/, 'no raw floats');
  }
  const express = doc.rows.find(
    (x: { label: string; scenario: string }) => x.label === 'express' && x.scenario === 'ping',
  );
  assert.equal(express.rank, 3);
  assert.equal(express.commit, 'bbbbbbb2222+dirty');
  assert.equal(express.cpu_model, 'AMD EPYC');
  const broken = doc.rows.find((x: { label: string }) => x.label === 'broken');
  assert.equal(broken.failed, true);
  assert.equal(broken.rank, null);

  const one = await cli(dir, 'export', '--format', 'json', '--run', OLD);
  assert.equal(one.code, 0, one.stderr);
  const oneDoc = JSON.parse(one.stdout);
  assert.deepEqual([...new Set(oneDoc.rows.map((x: { run_id: string }) => x.run_id))], [OLD]);
  assert.deepEqual(oneDoc.rows.map((x: { label: string }) => x.label).sort(), ['fastify', 'koa', 'node-http']);

  const bad = await cli(dir, 'export', '--run', 'no-such-run');
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /no run named 'no-such-run'.*Latest runs: .*2026-11-22T00-00-00Z-bbbb/);
  const badFormat = await cli(dir, 'export', '--format', 'xml');
  assert.equal(badFormat.code, 2);
  assert.match(badFormat.stderr, /--format must be one of md, terminal, html, json, csv; got 'xml'/);
});

test('export --format csv and md; --out writes the file', async () => {
  const dir = resultsDir();
  const csv = await cli(dir, 'export', '--format', 'csv', '--run', NEW);
  assert.equal(csv.code, 0, csv.stderr);
  const lines = csv.stdout.trim().split('\n');
  assert.equal(lines[0], CSV_COLUMNS.join(','));
  assert.ok(CSV_COLUMNS.includes('p999_ms') && CSV_COLUMNS.includes('cpu_model') && CSV_COLUMNS.includes('commit'));
  assert.ok(lines.length > 10);
  assert.ok(lines.slice(1).every((l) => l.startsWith(NEW)));
  const out = path.join(dir, 'board.md');
  const md = await cli(dir, 'export', '--format', 'md', '--out', out);
  assert.equal(md.code, 0, md.stderr);
  assert.equal(md.stdout, '');
  assert.match(fs.readFileSync(out, 'utf8'), /^# Leaderboard[\s\S]*## Overview/);
});

test('leaderboard --run renders one run into results/reports/<id>/, never over the committed LEADERBOARD.md', async () => {
  const dir = resultsDir();
  const committed = path.join(dir, 'LEADERBOARD.md');
  fs.writeFileSync(committed, 'committed report\n');
  const r = await cli(dir, 'leaderboard', '--run', NEW);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Overview \(.*\)\n {2}\S+ \(/);
  assert.match(r.stdout, /\n {2}Resolution: /);
  const runDir = path.join(dir, 'reports', NEW);
  assert.ok(
    /wrote (\S+)\s+and (\S+)\n/.exec(r.stdout)?.slice(1).join(' ') ===
      `${path.join(runDir, 'LEADERBOARD.md')} ${path.join(runDir, 'leaderboard.html')}`,
    r.stdout,
  );
  assert.equal(fs.readFileSync(committed, 'utf8'), 'committed report\n', 'the committed report is untouched');
  assert.ok(!fs.existsSync(path.join(dir, 'leaderboard.html')), 'no results/leaderboard.html written');
  const md = fs.readFileSync(path.join(runDir, 'LEADERBOARD.md'), 'utf8');
  assert.match(md, /^# Leaderboard/);
  assert.doesNotMatch(md, /koa|aaaa/, 'the other run is left out');
  assert.match(fs.readFileSync(path.join(runDir, 'leaderboard.html'), 'utf8'), /^<!doctype html>/);
  // --out DIR (created) instead of the default folder.
  const out = path.join(dir, 'elsewhere', 'one');
  const o = await cli(dir, 'leaderboard', '--run', OLD.slice(0, 10), '--out', out);
  assert.equal(o.code, 0, o.stderr);
  assert.match(fs.readFileSync(path.join(out, 'LEADERBOARD.md'), 'utf8'), /koa/);
  assert.equal(fs.readFileSync(committed, 'utf8'), 'committed report\n');
  // --out without --run is a usage error; plain leaderboard writes the committed files.
  const bad = await cli(dir, 'leaderboard', '--out', out);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^error: --out is for a one-run report/);
  const all = await cli(dir, 'leaderboard');
  assert.equal(all.code, 0, all.stderr);
  assert.match(fs.readFileSync(committed, 'utf8'), /`koa` \(run `2026-11-21T00-00-00Z-aaaa`\): \d+%/);
  assert.ok(fs.existsSync(path.join(dir, 'leaderboard.html')));
});

test('compare --format json: the comparison as data (schema bakeoff-compare v1)', async () => {
  const dir = resultsDir();
  const r = await cli(dir, 'compare', OLD, NEW, '--format', 'json');
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.schema, 'bakeoff-compare');
  assert.equal(doc.version, 1);
  assert.equal(doc.a, OLD);
  assert.equal(doc.b, NEW);
  const fastify = doc.changes.find((c: { label: string }) => c.label === 'fastify');
  assert.ok(fastify, r.stdout);
  assert.equal(fastify.scenario, 'ping');
  assert.match(fastify.verdict, /^(improved|regressed|no change)$/);
  if (fastify.change_low_pct !== null)
    assert.ok(fastify.change_low_pct <= fastify.change_pct && fastify.change_pct <= fastify.change_high_pct);
  const md = await cli(dir, 'compare', OLD, NEW, '--format', 'md');
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stdout, /fastify/);
  const bad = await cli(dir, 'compare', OLD, NEW, '--format', 'yaml');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--format must be md or json/);
});

test('export --format md --summary: one paste-able table per scenario (requests/s, % of baseline, rank), other runs marked', async () => {
  const dir = resultsDir();
  const r = await cli(dir, 'export', '--format', 'md', '--summary');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^\*\*How sure:\*\* /);
  assert.doesNotMatch(r.stdout, /^## /m, 'no report sections, only the summary');
  const ping = r.stdout.slice(r.stdout.indexOf('**ping**'), r.stdout.indexOf('**json**'));
  assert.match(ping, /^\*\*ping\*\* \(quick · autocannon · Node 24 · run `2026-11-22T00-00-00Z-bbbb`\)$/m);
  assert.match(ping, /^\| contender \| requests\/s \| % of `node-http` \| rank \|$/m);
  assert.match(ping, /^\| `node-http` \| [\d,]+ \(95% CI [\d,]+–[\d,]+\) \| 100% \(baseline\) \| 1–2 \|$/m);
  assert.match(ping, /^\| `express` \| [\d,]+ \(95% CI [\d,]+–[\d,]+\) \| 4\d% \(95% CI 4\d–4\d%\) \| \d \|$/m);
  assert.match(
    ping,
    /^\| `hono` \| [\d,]+ \(range \(3 trials\) [\d,]+–[\d,]+\) \| 7\d% .*\| not ranked \(3 trials\) \|$/m,
  );
  // koa was measured only in the older run: a row marked with its run, by its ratio to that run's baseline, not ranked.
  assert.match(
    ping,
    /^\| `koa` \(run `2026-11-21T00-00-00Z-aaaa`\) \| – \| 5\d% \(95% CI 5\d–5\d%\) of its run's `node-http` \| not ranked \(other run\) \|$/m,
  );
  assert.match(r.stdout, /^\| `broken` \| failed \| – \| not ranked \(failed\) \|$/m);
  // Every printed interval contains its figure.
  for (const m of r.stdout.matchAll(/\| ([\d,]+)%? \((?:95% CI|range \(\d trials\)) ([\d,]+)–([\d,]+)%?\)/g)) {
    const [fig, lo, hi] = [m[1], m[2], m[3]].map((x) => Number(x?.replace(/,/g, '')));
    assert.ok(lo! <= fig! && fig! <= hi!, m[0]);
  }
});
