// The progress sinks of bench / bench-all (harness/scheduler/progress-sink.ts): a live `\r` line
// per measured window on a TTY (fake stream and clock here), plain lines elsewhere, NDJSON events
// with --json, nothing with --quiet; Progress's events; and the autocannon driver's live samples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildRequest, loadParams, loadScenarios } from '../../harness/contract/scenarios.ts';
import { SCENARIOS_DIR } from '../../harness/core/paths.ts';
import { runAutocannon } from '../../harness/drivers/autocannon.ts';
import type { WindowTick } from '../../harness/drivers/driver-types.ts';
import { Progress } from '../../harness/scheduler/progress.ts';
import {
  createProgressSink,
  type ProgressEvent,
  type ProgressSink,
  REDRAW_MS,
  type WindowStartEvent,
} from '../../harness/scheduler/progress-sink.ts';

/** A stream that records what is written. */
function fakeStream(isTTY: boolean, columns?: number) {
  const chunks: string[] = [];
  return { isTTY, columns, chunks, write: (s: string) => chunks.push(s), text: () => chunks.join('') };
}

/** A fake clock and a fake `every`: tests advance the clock and fire the timers by hand. */
function fakeTime() {
  let t = 0;
  const timers = new Set<() => void>();
  return {
    now: () => t,
    every: (fn: () => void, ms: number) => {
      assert.equal(ms, REDRAW_MS);
      timers.add(fn);
      return () => timers.delete(fn);
    },
    /** Advances the clock by `ms` and fires every running timer once. */
    advance(ms: number) {
      t += ms;
      for (const fn of [...timers]) fn();
    },
    running: () => timers.size,
  };
}

const start = (over: Partial<WindowStartEvent> = {}): WindowStartEvent => ({
  event: 'window-start',
  window: 1,
  windows: 2,
  cell: 'a·ping',
  label: 'a · ping · quick · autocannon · Node 24',
  round: 1,
  rounds: 2,
  durationS: 5,
  elapsedMs: 12_000,
  etaMs: 60_000,
  ...over,
});

const end = (rps: number | null, cell = 'a·ping'): ProgressEvent => ({
  event: 'window-end',
  window: 1,
  windows: 2,
  cell,
  label: 'a',
  round: 1,
  rounds: 2,
  status: rps === null ? 'error' : 'ok',
  requestsPerSec: rps,
  p99Ms: rps === null ? null : 1.5,
  errors: rps === null ? null : 0,
  elapsedMs: 17_500,
  etaMs: 55_000,
});

/** Carriage return + clear-line: how every redraw of the live line starts. */
const CLEAR = '\r\x1b[2K';

/** Splits what a TTY shows into its redraws: every `\r\x1b[2K…` frame, and the finished lines. */
const frames = (text: string) => text.split(CLEAR).filter(Boolean);

test('TTY: a live line per window, redrawn with \\r at most 4×/s, live requests/s, finished by a newline', () => {
  const err = fakeStream(true, 200);
  const clock = fakeTime();
  const sink = createProgressSink({ err, now: clock.now, every: clock.every });
  assert.equal(sink.live, true);
  sink.emit(start(), '[1/2] plain text (not shown on a TTY)');
  assert.equal(clock.running(), 1, 'a redraw timer runs while the window does');
  assert.ok(err.text().startsWith(CLEAR), 'a redraw starts with \\r and clear-line');
  assert.match(
    err.text().slice(CLEAR.length),
    /^\[1\/2\] a · ping · quick · autocannon · Node 24 · round 1\/2 · 0\.0\/5 s, 5\.0 s left {3}elapsed 0m12s, ETA 1m00s$/,
  );
  // The driver's first sample (its load started 250 ms after the window-start event) resets the window's clock.
  clock.advance(REDRAW_MS);
  sink.tick({ elapsedS: 0, requestsPerSec: null });
  clock.advance(2 * REDRAW_MS);
  assert.match(err.chunks.at(-1)!, / · 0\.5\/5 s, 4\.5 s left {3}elapsed 0m13s, ETA 0m59s$/);
  // Redraws come from the timer every 250 ms, not more often: a sample just after a redraw waits for the next one.
  const before = err.chunks.length;
  sink.tick({ elapsedS: 1, requestsPerSec: 12_345 });
  assert.equal(err.chunks.length, before, 'no redraw within 250 ms of the last');
  clock.advance(REDRAW_MS);
  assert.ok(err.chunks.at(-1)!.startsWith(CLEAR));
  assert.match(
    err.chunks.at(-1)!.slice(CLEAR.length),
    /^\[1\/2\] .* · 0\.8\/5 s, 4\.3 s left · 12,345 req\/s {3}elapsed 0m13s, ETA 0m59s$/,
  );
  for (let i = 0; i < 17; i++) clock.advance(REDRAW_MS); // 5.25 s in: the window's 5 s are over
  const draws = err.chunks.filter((c) => c.startsWith('\r')).length;
  assert.ok(draws <= 1 + 5250 / REDRAW_MS, `${draws} redraws in 5.25 s`);
  assert.doesNotMatch(err.text(), /\n/, 'no newline while the window runs');
  sink.emit(end(12_000), '  12,000 req/s, p50 1.000 ms, p99 1.500 ms');
  assert.equal(clock.running(), 0, 'the timer is cleared when the window ends');
  const text = err.text();
  assert.match(
    text,
    /· 5\.0\/5 s, 0\.0 s left · 12,345 req\/s {3}elapsed 0m17s, ETA 0m55s\n {2}12,000 req\/s, p50 1\.000 ms, p99 1\.500 ms\n$/,
  );
  assert.equal(text.split('\n').length, 3, 'the live line and the result line, each finished');
  // The next window of the same cell (a driver without live samples): the last window's figure, labelled.
  const err2len = err.chunks.length;
  sink.emit(start({ window: 2, round: 2 }));
  assert.match(err.chunks[err2len]!, / · last window 12,000 req\/s {3}elapsed/);
  // A note while a window is live finishes the live line first; close() is idempotent.
  sink.note('a note');
  assert.equal(clock.running(), 0);
  assert.match(err.text(), /req\/s {3}elapsed 0m12s, ETA 1m00s\na note\n$/);
  sink.close();
  sink.close();
  assert.match(err.text(), /\na note\n$/);
});

test('TTY: another cell has no "last window" figure, a too-long line is cut to the terminal width', () => {
  const err = fakeStream(true, 60);
  const clock = fakeTime();
  const sink = createProgressSink({ err, now: clock.now, every: clock.every });
  sink.emit(start());
  sink.emit(end(9000));
  sink.emit(start({ cell: 'b·ping', label: 'b · ping · quick · autocannon · Node 24' }));
  const last = frames(err.text()).at(-1)!;
  assert.doesNotMatch(last, /req\/s/, 'no figure is invented for a cell without one');
  assert.ok([...last].length <= 59, `${[...last].length} columns: ${last}`);
  assert.match(last, /^\[1\/2\] b ·… · 0\.0\/5 s, 5\.0 s left {3}elapsed 0m12s, ETA 1m00s$/);
  sink.close();
  assert.ok(err.text().endsWith('\n'));
});

test('not a TTY: the plain lines, one per window, no \\r and no timer', () => {
  const err = fakeStream(false);
  const clock = fakeTime();
  const sink = createProgressSink({ err, now: clock.now, every: clock.every });
  assert.equal(sink.live, false);
  sink.emit(start(), '[1/2] a · round 1/2   elapsed 0m12s, ETA 1m00s');
  sink.tick({ elapsedS: 1, requestsPerSec: 5 });
  clock.advance(1000);
  sink.emit(end(12_000), '  12,000 req/s');
  sink.emit({ event: 'step', text: 'x', elapsedMs: 0, etaMs: 0 }, 'starting x   elapsed 0m00s, ETA 0m00s');
  sink.emit({ event: 'run-end', runId: 'r', exitCode: 0, interrupted: false, cells: 1, wallMs: 1 });
  sink.note('note');
  sink.close();
  assert.equal(clock.running(), 0);
  assert.equal(
    err.text(),
    '[1/2] a · round 1/2   elapsed 0m12s, ETA 1m00s\n  12,000 req/s\nstarting x   elapsed 0m00s, ETA 0m00s\nnote\n',
  );
  assert.doesNotMatch(err.text(), /\r/);
});

test('--json: every line on stdout is a JSON event with its fields; notes go to stderr', () => {
  const out = fakeStream(false);
  const err = fakeStream(true);
  const sink = createProgressSink({ json: true, out, err });
  assert.equal(sink.live, false, 'no live line with --json');
  const p = new Progress(sink);
  p.plan('window', 20_000, 2);
  p.runStart(
    {
      runId: 'run-1',
      mode: 'bench',
      cells: 1,
      groups: 1,
      rounds: 2,
      windowS: 5,
      profile: 'quick',
      driver: 'autocannon',
      seed: 7,
    },
    'run run-1: …',
  );
  p.build('a', 'npm run build');
  p.step('ping · quick: starting 1 server(s)');
  p.note('results: /tmp/x');
  const trial = {
    cellId: 'a·ping',
    label: 'a',
    status: 'ok',
    round: 1,
    load: {
      requestsPerSec: { mean: 12_000, stddev: 0, samples: [] },
      latencyMs: { mean: 1, p50: 1, p90: 1, p99: 2.5, max: 3 },
      errors: 1,
      timeouts: 0,
      non2xx: 2,
      bodyChecks: { sampled: 1, mismatched: 0 },
    },
  } as any;
  p.window({ cell: 'a·ping', label: 'a · ping', round: 1, rounds: 2, durationS: 5 }, 10_000);
  p.tick({ elapsedS: 1, requestsPerSec: 1 });
  p.windowEnd(trial, '  12,000 req/s');
  p.window({ cell: 'a·ping', label: 'a · ping', round: 2, rounds: 2, durationS: 5 }, 10_000);
  p.windowEnd(
    { cellId: 'a·ping', label: 'a', status: 'crashed', round: 2, failure: { reason: 'died' } } as any,
    '  CRASHED',
  );
  p.cellDone(
    'a·ping',
    'a · ping',
    {
      ...trial,
      status: 'ok',
      stats: { trials: 2, noisy: true, rps: { figure: 11_500, kind: 'range' } },
    },
    '  a · ping: … — noisy',
  );
  p.cellDone(
    'b·ping',
    'b · ping',
    {
      cellId: 'b·ping',
      status: 'build-failed',
      failure: { reason: 'build failed' },
    } as any,
    '  b · ping: BUILD-FAILED: build failed',
  );
  sink.emit({ event: 'run-end', runId: 'run-1', exitCode: 3, interrupted: false, cells: 2, wallMs: 99 });
  p.close();

  assert.equal(err.text(), 'results: /tmp/x\n', 'notes on stderr, no human progress lines');
  const lines = out.text().split('\n');
  assert.equal(lines.pop(), '', 'ends with a newline');
  const events = lines.map((l) => JSON.parse(l));
  assert.deepEqual(
    events.map((e) => e.event),
    [
      'run-start',
      'build',
      'step',
      'window-start',
      'window-end',
      'window-start',
      'window-end',
      'cell-done',
      'cell-done',
      'run-end',
    ],
  );
  const [run, build, step, ws, we, , crashed, done, failed, runEnd] = events;
  assert.deepEqual(run, {
    event: 'run-start',
    runId: 'run-1',
    mode: 'bench',
    cells: 1,
    groups: 1,
    rounds: 2,
    windowS: 5,
    profile: 'quick',
    driver: 'autocannon',
    seed: 7,
    windows: 2,
    etaMs: 20_000,
  });
  assert.equal(build.contender, 'a');
  assert.equal(build.command, 'npm run build');
  assert.equal(step.text, 'ping · quick: starting 1 server(s)');
  for (const e of [build, step, ws, we, done]) {
    assert.equal(typeof e.elapsedMs, 'number', e.event);
    assert.equal(typeof e.etaMs, 'number', e.event);
  }
  assert.deepEqual(
    { ...ws, elapsedMs: 0, etaMs: 0 },
    {
      event: 'window-start',
      window: 1,
      windows: 2,
      cell: 'a·ping',
      label: 'a · ping',
      round: 1,
      rounds: 2,
      durationS: 5,
      elapsedMs: 0,
      etaMs: 0,
    },
  );
  assert.equal(we.event, 'window-end');
  assert.equal(we.window, 1);
  assert.equal(we.cell, 'a·ping');
  assert.equal(we.status, 'ok');
  assert.equal(we.requestsPerSec, 12_000);
  assert.equal(we.p99Ms, 2.5);
  assert.equal(we.errors, 3);
  assert.equal(crashed.window, 2);
  assert.equal(crashed.round, 2);
  assert.equal(crashed.status, 'crashed');
  assert.equal(crashed.requestsPerSec, null, 'no figure for a failed window');
  assert.deepEqual(
    [done.status, done.figure, done.interval, done.trials, done.noisy, done.reason],
    ['ok', 11_500, 'range', 2, true, null],
  );
  assert.deepEqual([failed.status, failed.figure, failed.reason], ['build-failed', null, 'build failed']);
  assert.equal(runEnd.exitCode, 3);
});

test('--quiet: nothing at all (with --json: the events only)', () => {
  const out = fakeStream(true);
  const err = fakeStream(true);
  const sink: ProgressSink = createProgressSink({ quiet: true, out, err });
  const p = new Progress(sink);
  p.plan('window', 10_000, 1);
  p.step('starting');
  p.window({ cell: 'a', label: 'a', round: 1, rounds: 1, durationS: 5 }, 10_000);
  p.tick({ elapsedS: 1, requestsPerSec: 1000 });
  p.note('a note');
  sink.emit({ event: 'run-end', runId: 'r', exitCode: 0, interrupted: false, cells: 0, wallMs: 0 });
  p.close();
  assert.equal(out.text() + err.text(), '');
  assert.equal(sink.live, false);

  const jout = fakeStream(false);
  const jerr = fakeStream(false);
  const json = createProgressSink({ json: true, quiet: true, out: jout, err: jerr });
  json.note('a note');
  json.emit({ event: 'step', text: 's', elapsedMs: 0, etaMs: 0 }, 'human text');
  assert.equal(jerr.text(), '');
  assert.deepEqual(JSON.parse(jout.text()), { event: 'step', text: 's', elapsedMs: 0, etaMs: 0 });
});

test('Progress with a log function: the plain lines as before (a string label still works)', () => {
  const lines: string[] = [];
  let t = 0;
  const p = new Progress(
    (l) => lines.push(l),
    () => t,
  );
  assert.equal(p.wantsTicks(), false);
  p.plan('window', 10_000, 2);
  p.window('x', 5000);
  t = 5000;
  p.done('window', 5000);
  p.window({ cell: 'c', label: 'y', round: 2, rounds: 2, durationS: 4 }, 5000);
  assert.deepEqual(lines, ['[1/2] x   elapsed 0m00s, ETA 0m10s', '[2/2] y · round 2/2   elapsed 0m05s, ETA 0m05s']);
});

test('ETA: per kind, the measured phases replace the estimate of the rest; a build stands only for builds', async () => {
  let t = 0;
  const p = new Progress(
    () => {},
    () => t,
  );
  p.plan('build', 16_000); // two builds
  p.plan('server', 10 * 1500);
  p.plan('window', 20 * 1300, 20);
  p.plan('fidelity', 17_000);
  assert.equal(p.eta(), 16_000 + 15_000 + 26_000 + 17_000, 'before any evidence: the plan');
  await p.timed('build', 8000, async () => {
    t += 1000;
  });
  // A build planned at 8 s that took 1 s: the other build is now 1 s, and nothing else moves (one
  // global scale halved the ETA of run 2026-11-26T13-02-33Z-4576 right after its first build).
  assert.equal(p.eta(), 1000 + 15_000 + 26_000 + 17_000);
  await p.timed('build', 8000, async () => {
    t += 1000;
  });
  // Server starts at 3 s, twice the estimate: the 8 left are 24 s; windows and the fidelity check,
  // not yet seen, take the ratio of what was seen (2).
  t += 3000;
  p.done('server', 1500);
  t += 3000;
  p.done('server', 1500);
  assert.equal(p.eta(), 8 * 3000 + 2 * 26_000 + 2 * 17_000);
  // The windows run at 1.3 s, as planned: their kind's ratio is 1; the fidelity check takes the
  // ratio of all (2 × 3000 + 1300) ÷ (2 × 1500 + 1300).
  t += 1300;
  p.done('window', 1300);
  const all = (6000 + 1300) / (3000 + 1300);
  assert.ok(Math.abs(p.eta() - (24_000 + 19 * 1300 + 17_000 * all)) < 1e-6, `${p.eta()}`);
  // A phase under way counts down from the end of the one before it.
  t += 500;
  assert.ok(Math.abs(p.eta() - (24_000 + 19 * 1300 + 17_000 * all - 500)) < 1e-6, `${p.eta()}`);
  // Skipped work leaves the plan without evidence; a phase that throws stays planned.
  p.skip('window', 19 * 1300);
  await assert.rejects(
    p.timed('server', 1500, async () => {
      throw new Error('start crashed');
    }),
    /start crashed/,
  );
  assert.ok(Math.abs(p.eta() - (24_000 + 17_000 * all - 500)) < 1e-6, `${p.eta()}`);
  // settle: what a part planned and did not close is skipped.
  const since = p.closedMs();
  t += 1000;
  p.done('server', 1500);
  p.settle({ server: 3000 }, since);
  const r = p.record();
  assert.deepEqual(r.phases.at(-2), ['server', 1, 1500, 1500]);
  assert.deepEqual(r.phases.at(-1), ['server', 1, 1500, null], 'the second server of the part never ran');
  assert.deepEqual(
    r.phases.slice(0, 3),
    [
      ['build', 2, 16_000, 2000],
      ['server', 2, 3000, 6000],
      ['window', 1, 1300, 1300],
    ],
    'consecutive phases of a kind are merged',
  );
});

test('autocannon driver: onTick gets the live per-second requests of a window', async () => {
  const server = http.createServer((_req, res) => res.end('pong')).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const s = loadScenarios(SCENARIOS_DIR).find((x) => x.name === 'ping')!;
    const params = loadParams(s);
    const ticks: WindowTick[] = [];
    const out = await runAutocannon(
      {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        scenario: 'ping',
        scenariosDir: SCENARIOS_DIR,
        params,
        request: buildRequest(s, params),
        sampleEvery: 1000,
        connections: 4,
        pipelining: 1,
        durationS: 2,
        timeoutS: 5,
        workers: 1,
      },
      null,
      undefined,
      undefined,
      (t) => ticks.push(t),
    );
    assert.deepEqual(ticks[0], { elapsedS: 0, requestsPerSec: null }, 'a first sample when the load starts');
    ticks.shift();
    assert.ok(ticks.length >= 1 && ticks.length <= 2, `${ticks.length} ticks: ${JSON.stringify(ticks)}`);
    assert.deepEqual(
      ticks.map((t) => t.elapsedS),
      ticks.map((_, i) => i + 1),
    );
    assert.ok(
      ticks.every((t) => typeof t.requestsPerSec === 'number' && t.requestsPerSec > 0),
      JSON.stringify(ticks),
    );
    assert.deepEqual(
      ticks.map((t) => t.requestsPerSec),
      out.requestsPerSec.samples.slice(0, ticks.length),
      'the live samples are the recorded per-second samples',
    );
  } finally {
    server.close();
  }
});

test('a capacity step is a capacity-step event with --json and its plain line otherwise', () => {
  const step = {
    search: 2,
    rate: 12_000,
    achievedRps: 11_990,
    latencyMs: { p50: 0.5, p90: 1, p99: 14.2, max: 30 },
    scheduled: 12_000,
    failed: 0,
    durationS: 1,
    pass: false,
    clientBound: false,
    reason: 'p99 14.2 ms > 10 ms',
  };
  const out = fakeStream(false);
  const p = new Progress(createProgressSink({ json: true, out, err: fakeStream(false) }));
  p.capacityStep('a·ping', 'a · ping', step, '    step 12,000 req/s …');
  const [e] = out
    .text()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(e.event, 'capacity-step');
  assert.deepEqual(
    { cell: e.cell, search: e.search, rate: e.rate, p99Ms: e.p99Ms, pass: e.pass, reason: e.reason },
    { cell: 'a·ping', search: 2, rate: 12_000, p99Ms: 14.2, pass: false, reason: 'p99 14.2 ms > 10 ms' },
  );
  assert.equal(typeof e.elapsedMs, 'number');
  const lines: string[] = [];
  new Progress((l) => lines.push(l)).capacityStep('a·ping', 'a · ping', step, '    step 12,000 req/s …');
  assert.deepEqual(lines, ['    step 12,000 req/s …']);
});
