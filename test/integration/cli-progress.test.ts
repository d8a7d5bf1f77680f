// The progress output of a real `bench` (harness/scheduler/progress-sink.ts) through the CLI: one
// cheap run each (node-http · ping, smoke profile, one round), so a real server and a real load
// driver. The sinks themselves, without processes, are test/unit/progress.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readCells, runCli, tmpDir } from '../helpers.ts';

const oneCell = ['bench', 'node-http', '--profile', 'smoke', '--scenario', 'ping', '--rounds', '1'];
const cheap = ['--no-fidelity', '--no-baseline', '--no-variants'];

test('bench --json: stdout is NDJSON only, from run-start to run-end; no human progress lines', async () => {
  const results = tmpDir('progress-json');
  const r = await runCli(['--results-dir', results, ...oneCell, ...cheap, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.equal(lines.pop(), '', 'stdout ends with a newline');
  const bad = lines.filter((l) => {
    try {
      JSON.parse(l);
      return false;
    } catch {
      return true;
    }
  });
  assert.deepEqual(bad, [], 'every stdout line is JSON');
  const events = lines.map((l) => JSON.parse(l));
  const kinds = events.map((e) => e.event);
  assert.equal(kinds[0], 'run-start', kinds.join());
  assert.equal(kinds.at(-1), 'run-end', kinds.join());
  for (const k of ['window-start', 'window-end', 'cell-done']) assert.equal(kinds.filter((x) => x === k).length, 1, k);
  const [start, end] = [events[0], events.at(-1)];
  assert.equal(start.cells, 1);
  assert.equal(start.windows, 1);
  assert.equal(typeof start.etaMs, 'number');
  assert.equal(end.runId, start.runId);
  assert.equal(end.exitCode, 0);
  const w = events.find((e) => e.event === 'window-end');
  assert.equal(w.status, 'ok');
  assert.ok(w.requestsPerSec > 0 && w.p99Ms > 0, JSON.stringify(w));
  assert.equal(events.find((e) => e.event === 'cell-done').status, 'ok');
  assert.doesNotMatch(r.stderr, /^\[\d+\/\d+\]/m, 'no human progress lines');
  assert.match(r.stderr, /node-http/, 'the final table goes to stderr');
});

test('bench --quiet: no progress lines on stderr, the final table on stdout', async () => {
  const results = tmpDir('progress-quiet');
  const r = await runCli(['--results-dir', results, ...oneCell, ...cheap, '-q']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '', 'nothing on stderr');
  assert.match(r.stdout, /node-http/);
  assert.doesNotMatch(r.stdout, /elapsed \dm\d\ds|^\[\d+\/\d+\]|\r/m);
  assert.equal(readCells(results).length, 1, 'the run was recorded');
});
