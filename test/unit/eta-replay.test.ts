// The ETA (harness/scheduler/progress.ts) replayed on recorded phase times with a fake clock: the
// committed bake-off 2026-11-26T21-34-58Z-d078 (92 cells in 11 groups, 30 min 30 s), the same
// times on a host 1.6× slower, and with only its load windows 1.6× slower. From the end of the
// first group on, every ETA (at each phase's start and halfway through it) must be within ±15% of
// the time that was really left.
//
// d078 predates meta.json `timings`, so its phases are derived from its trials and cells (stored
// compacted, read through the store):
// - a server's start + contract check + burst: its cell's overheadMs.start + verify;
// - the solo windows: the gaps between consecutive solo trials' finishedAt (the first window of a
//   group: the median gap);
// - the warm-ups: what is left between the group's start (its trials' startedAt) and the end of
//   its first solo window, shared equally;
// - the interleaved rounds: the gaps between rounds (the latest finishedAt of each round's paired
//   trials); a round after a restart: the median of the rounds without one;
// - a restart as a further server process: the cell's start + verify + teardown; the warm-ups of
//   that process: the rest of the gap, shared equally;
// - the gap between groups goes to the next group's first server start (as on the progress clock);
//   the time after the last round (the last group's teardown and the fidelity check) is the
//   fidelity phase; the 6 s before the first group (its builds were cached) is PostgreSQL's start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { getProfile } from '../../harness/core/profiles.ts';
import { groupPlan } from '../../harness/scheduler/group.ts';
import { readCellDir } from '../../harness/store/result-files.ts';
import { readTrials } from '../../harness/store/runs.ts';
import type { CellSpec } from '../../harness/scheduler/plan.ts';
import { ESTIMATE, type PhaseKind, Progress, type RunTimings } from '../../harness/scheduler/progress.ts';
import { fidelityPlanMs } from '../../harness/scheduler/run-fidelity.ts';
import { ROOT } from '../helpers.ts';

const D078 = path.join(ROOT, 'results', 'runs', '2026-11-26T21-34-58Z-d078');
const TOLERANCE = 0.15;

type Phase = RunTimings['phases'][number];

interface TrialFile {
  cellId: string;
  scenario: string;
  round: number;
  startedAt: string;
  finishedAt: string;
  paired?: unknown;
}

interface CellFile {
  cellId: string;
  scenario: string;
  contender: string;
  overheadMs: { start: number; verify: number; teardown: number } | null;
}

const readJson = (f: string) => JSON.parse(fs.readFileSync(f, 'utf8'));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};
const at = (iso: string) => Date.parse(iso);

/**
 * The phases of a recorded quick bake-off, derived from its trial and cell files (see the file's
 * comment), each planned as the scheduler plans it (group.ts `groupPlan`), in run order; and the
 * index of the last phase of the first group.
 */
function derivePhases(dir: string): { timings: RunTimings; firstGroupEnd: number } {
  const meta = readJson(path.join(dir, 'meta.json'));
  // Through the store's reader, which reads the run's compacted cells and trials (store/compact.ts).
  const read = readTrials(dir);
  const acc = { skipped: [] as string[], warnings: read.warnings };
  const trials = read.trials as unknown as TrialFile[];
  const cells = readCellDir(path.join(dir, 'cells'), acc) as unknown as CellFile[];
  assert.deepEqual(acc.warnings, [], 'every cell and trial of the run reads');
  assert.ok(trials.length > 0 && cells.length > 0, `${dir}: no trials or cells`);
  const profile = getProfile(meta.profile);
  const rounds: number = meta.trials.count;
  const scenarios = [...new Set(trials.map((t) => t.scenario))].sort(
    (a, b) =>
      Math.min(...trials.filter((t) => t.scenario === a).map((t) => at(t.startedAt))) -
      Math.min(...trials.filter((t) => t.scenario === b).map((t) => at(t.startedAt))),
  );
  const phases: Phase[] = [];
  const add = (kind: PhaseKind, planned: number, took: number) => {
    assert.ok(took >= 0, `${kind}: a derived phase of ${took} ms`);
    phases.push([kind, 1, planned, took]);
  };
  // Before the first group: the builds (cached in d078: no time) and PostgreSQL.
  const builds = [...new Set(cells.map((c) => c.contender))].filter(
    (name) => readJson(path.join(ROOT, 'contenders', name, 'contender.json')).build,
  );
  for (const _ of builds) add('build', ESTIMATE.build, 0);
  let prevEnd = at(meta.startedAt);
  let firstGroupEnd = -1;
  for (const scenario of scenarios) {
    const ts = trials.filter((t) => t.scenario === scenario);
    const cs = cells.filter((c) => c.scenario === scenario).sort((a, b) => a.cellId.localeCompare(b.cellId));
    const n = cs.length;
    const plan = groupPlan(Array.from({ length: n }, () => ({ profile })) as CellSpec[], rounds, 'bench');
    const unit = (k: PhaseKind) => plan.parts[k]?.ms ?? 0;
    const start = Math.min(...ts.map((t) => at(t.startedAt)));
    const gap = start - prevEnd;
    if (prevEnd === at(meta.startedAt)) add('database', ESTIMATE.database, gap);
    const solo = ts
      .filter((t) => !t.paired)
      .map((t) => at(t.finishedAt))
      .sort((a, b) => a - b);
    const gaps = solo.slice(1).map((x, i) => x - (solo[i] ?? 0));
    const firstWindow = median(gaps);
    const servers = cs.map((c) => (c.overheadMs ? c.overheadMs.start + c.overheadMs.verify : 0));
    const warmEach = ((solo[0] ?? 0) - start - servers.reduce((a, b) => a + b, 0) - firstWindow) / n;
    if (prevEnd !== at(meta.startedAt)) servers[0] = (servers[0] ?? 0) + gap;
    for (const s of servers) add('server', unit('server'), s);
    for (let i = 0; i < n; i++) add('warmup', unit('warmup'), warmEach);
    add('window', unit('window'), firstWindow);
    for (const g of gaps) add('window', unit('window'), g);
    const roundEnd = (r: number) =>
      Math.max(...ts.filter((t) => t.paired && t.round === r).map((t) => at(t.finishedAt)));
    const il = profile.driver !== 'k6' ? profile.interleave : undefined;
    assert.ok(il, 'a profile with interleaved rounds');
    const per = Math.ceil(il.rounds / (il.instances ?? 1));
    const ends = Array.from({ length: il.rounds }, (_, i) => roundEnd(i + 1));
    const span = ends.map((e, i) => e - (i === 0 ? (solo.at(-1) ?? 0) : (ends[i - 1] ?? 0)));
    const plain = median(span.filter((_, i) => i % per !== 0 || i === 0));
    for (const [i, s] of span.entries()) {
      if (i > 0 && i % per === 0) {
        const restarts = cs.map((c) =>
          c.overheadMs ? c.overheadMs.start + c.overheadMs.verify + c.overheadMs.teardown : 0,
        );
        const rewarm = (s - plain - restarts.reduce((a, b) => a + b, 0)) / n;
        for (const r of restarts) add('restart', unit('restart'), r);
        for (let k = 0; k < n; k++) add('rewarm', unit('rewarm'), rewarm);
        add('round', unit('round'), plain);
      } else add('round', unit('round'), s);
    }
    prevEnd = ends.at(-1) ?? prevEnd;
    if (firstGroupEnd < 0) firstGroupEnd = phases.length - 1;
  }
  add('fidelity', fidelityPlanMs({ cells: [{ profile } as CellSpec] }), at(meta.finishedAt) - prevEnd);
  return { timings: { startEtaMs: 0, phases }, firstGroupEnd };
}

/** An ETA read at `t` ms into the replay, with the time really left then. */
interface Reading {
  phase: number;
  t: number;
  etaMs: number;
  leftMs: number;
}

/**
 * Replays `timings` through a real Progress on a fake clock: the plan is every phase's planned ms
 * (the skipped ones too); each phase runs for its recorded time and is then marked done (a skipped
 * one is skipped). Reads the ETA at each phase's start and halfway through it.
 */
function replay(timings: RunTimings): { readings: Reading[]; startEtaMs: number; totalMs: number; record: RunTimings } {
  let t = 0;
  const p = new Progress(
    () => {},
    () => t,
  );
  for (const [kind, , planned] of timings.phases) p.plan(kind, planned);
  const startEtaMs = p.eta();
  const totalMs = timings.phases.reduce((s, [, , , took]) => s + (took ?? 0), 0);
  const readings: Reading[] = [];
  for (const [i, [kind, count, planned, took]] of timings.phases.entries()) {
    if (took === null) {
      p.skip(kind, planned);
      continue;
    }
    for (let k = 0; k < count; k++) {
      readings.push({ phase: i, t, etaMs: p.eta(), leftMs: totalMs - t });
      t += took / count / 2;
      readings.push({ phase: i, t, etaMs: p.eta(), leftMs: totalMs - t });
      t += took / count / 2;
      p.done(kind, planned / count);
    }
  }
  return { readings, startEtaMs, totalMs, record: p.record() };
}

/** `timings` with the time of the phases of `kinds` (all when omitted) multiplied by `f`. */
function slower(timings: RunTimings, f: number, kinds?: PhaseKind[]): RunTimings {
  return {
    ...timings,
    phases: timings.phases.map(([k, n, p, took]) => [
      k,
      n,
      p,
      took !== null && (!kinds || kinds.includes(k)) ? took * f : took,
    ]),
  };
}

/** The worst relative error of the readings from phase `from` on (where time is left), with where it was. */
function worst(readings: Reading[], from: number): { err: number; at: Reading | null } {
  let w = { err: 0, at: null as Reading | null };
  for (const r of readings)
    if (r.phase > from && r.leftMs > 0) {
      const err = (r.etaMs - r.leftMs) / r.leftMs;
      if (Math.abs(err) > Math.abs(w.err)) w = { err, at: r };
    }
  return w;
}

const min = (ms: number) =>
  `${Math.floor(ms / 60_000)} min ${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')} s`;

test('d078 derived: 11 groups of the quick bake-off, every phase accounted, and the run’s wall time', () => {
  const { timings, firstGroupEnd } = derivePhases(D078);
  const meta = readJson(path.join(D078, 'meta.json'));
  const total = timings.phases.reduce((s, [, , , took]) => s + (took ?? 0), 0);
  assert.ok(Math.abs(total - (at(meta.finishedAt) - at(meta.startedAt))) < 1, 'the phases add up to the run');
  const count = (k: PhaseKind) => timings.phases.filter(([kind]) => kind === k).length;
  assert.equal(count('server'), 92);
  assert.equal(count('window'), 184);
  assert.equal(count('round'), 66);
  assert.equal(count('restart'), 184);
  assert.ok(firstGroupEnd > 0 && timings.phases[firstGroupEnd]?.[0] === 'round');
});

for (const [name, f, kinds] of [
  ['d078 as recorded', 1, undefined],
  ['d078 on a host 1.6× slower', 1.6, undefined],
  ['d078 with only its load windows 1.6× slower', 1.6, ['warmup', 'window', 'round', 'rewarm', 'fidelity']],
  ['d078 with only its solo windows 1.6× slower', 1.6, ['window']],
] as [string, number, PhaseKind[] | undefined][]) {
  test(`ETA replay, ${name}: within ±15% of the time left from the end of the first group on`, () => {
    const { timings, firstGroupEnd } = derivePhases(D078);
    const r = replay(slower(timings, f, kinds));
    const w = worst(r.readings, firstGroupEnd);
    const at = w.at;
    const where = at ? `${min(at.t)} in, ETA ${min(at.etaMs)} against ${min(at.leftMs)} left` : '';
    console.log(
      `${name}: took ${min(r.totalMs)}, the ETA at the start said ${min(r.startEtaMs)}; worst from the end of the first group on: ${(w.err * 100).toFixed(1)}% (${where})`,
    );
    assert.ok(Math.abs(w.err) <= TOLERANCE, `worst ETA error ${(w.err * 100).toFixed(1)}% (${where})`);
  });
}

test('a run’s own record (meta.json `timings`, consecutive phases of a kind merged) replays the same way', () => {
  const { timings, firstGroupEnd } = derivePhases(D078);
  const first = replay(slower(timings, 1.6));
  const again = replay(first.record);
  assert.ok(Math.abs(again.totalMs - first.totalMs) < 1000, 'the record keeps the time of every phase');
  assert.equal(
    again.record.phases.reduce((s, [, n]) => s + n, 0),
    timings.phases.length,
  );
  // The merged record's index of the first group's end: the phases before it, counted.
  let phases = 0;
  let from = -1;
  for (const [i, [, n]] of again.record.phases.entries()) {
    phases += n;
    if (phases === firstGroupEnd + 1) from = i;
  }
  assert.ok(from > 0);
  const w = worst(again.readings, from);
  assert.ok(Math.abs(w.err) <= TOLERANCE, `${(w.err * 100).toFixed(1)}%`);
});
