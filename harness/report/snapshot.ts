/**
 * The exporters' input: a read-only snapshot of runs, as the store reads them (each run's meta
 * and its cells) plus the scenario contract (order, titles, baselines). Every exporter takes
 * one and returns text; nothing in report/ reads files under `results/` itself.
 */
import type { CellResult, RunMeta } from '../store/results.ts';
import type { SelftestSummary } from '../store/selftest-store.ts';
import type { ReferenceRecord } from '../store/reference-store.ts';
import type { FoldedRead } from '../store/flame-store.ts';
import type { WhyRecord } from '../store/why-store.ts';
import { UserError } from '../core/errors.ts';
import { isControl } from '../analysis/aa-control.ts';

/** One run as the store reads it. */
export interface SnapshotRun {
  readonly meta: RunMeta;
  readonly cells: readonly CellResult[];
  /** Its trial files (one per measured window), when the reader loaded them: the leak rule reads them. */
  readonly trials?: readonly CellResult[];
}

/** What the report needs of a scenario (contract/scenarios.ts `Scenario` fits): order, title, baseline. */
export interface SnapshotScenario {
  readonly name: string;
  readonly title: string;
  /** The scenario's baseline contender (GRAPHQL's `Scenario.baseline`); default node-http / postgraphile-express. */
  readonly baseline?: string;
  /** One of the simple REST routes the issue analysis judges a collapse against (scenario file `reference`). */
  readonly reference?: boolean;
  /** What a failure in it points at (scenario file `focus`), for the issue hints. */
  readonly focus?: 'framework' | 'body-parsing' | 'http-client' | 'database';
}

/** A read-only snapshot of runs (oldest first) and the scenarios they were measured against. */
export interface ReportSnapshot {
  readonly runs: readonly SnapshotRun[];
  readonly scenarios: readonly SnapshotScenario[];
  /** The CPU attribution records of `just why` runs (store/why-store.ts), oldest first, when the reader loaded them. */
  readonly why?: readonly WhyRecord[];
  /**
   * The newest `just selftest` record (store/selftest-store.ts) for the how-sure line: null when
   * the reader found none ("self-test: not run"), absent when the reader did not look.
   */
  readonly selftest?: SelftestSummary | null;
  /**
   * The flame graphs of those records' cells (store/flame-store.ts), keyed `<run-id>/<cell-id>`
   * (why-store.ts `flameKey`); a missing or truncated file is `{ ok: false, reason }`.
   */
  readonly flames?: ReadonlyMap<string, FoldedRead>;
  /**
   * A one-run report's reference (`selectRun`): an older complete run of the same profile, from the
   * store, shown beside the run as a reference only (report/reference-run.ts), never in its tables.
   */
  readonly referenceRun?: SnapshotRun;
  /**
   * The steady-state reference records that meet the reference's minimums on a quiet machine
   * (store/reference-store.ts), read together for the how-sure line's second certificate
   * (analysis/reference-merge.ts `mergeReferences`); empty or absent: none.
   */
  readonly references?: readonly ReferenceRecord[];
  /**
   * The store's runs that hold an A/A control cell (analysis/aa-control.ts), for the how-sure
   * line's count over runs: a one-run report (`selectRun`) keeps them; absent: `runs`.
   */
  readonly controlRuns?: readonly SnapshotRun[];
}

/**
 * A snapshot from cells alone (callers that hold no run metadata, e.g. the summary after a
 * bench, or older code): cells grouped into runs by runId, each with a minimal meta whose
 * machine is 'unknown'. Prefer the store's read (cli/report.ts readSnapshot).
 */
export function snapshotOfCells(
  cells: readonly CellResult[],
  scenarios: readonly SnapshotScenario[],
  metas: readonly RunMeta[] = [],
): ReportSnapshot {
  const byRun = new Map<string, CellResult[]>();
  for (const c of cells) byRun.set(c.runId, [...(byRun.get(c.runId) ?? []), c]);
  const runs = [...byRun].map(([runId, cs]) => {
    const known = metas.find((m) => m.runId === runId);
    if (known) return { meta: known, cells: cs };
    const startedAt = cs.map((c) => c.startedAt).sort()[0] ?? '';
    const meta: RunMeta = {
      schemaVersion: 1,
      runId,
      startedAt,
      finishedAt: null,
      state: 'complete',
      command: [],
      profile: cs[0]?.profile ?? '',
      machine: { cpuModel: 'unknown', cores: 0, memoryBytes: 0, os: 'unknown', arch: 'unknown' },
      node: { version: cs[0]?.node.version ?? '', execPath: '' },
      git: { commit: null, dirty: null },
      cpuPlan: cs[0]?.cpuPlan ?? {
        pinned: false,
        server: null,
        client: null,
        services: null,
        allowedCores: [],
        note: 'unknown',
        clientThreads: 1,
      },
      upstreamDelayMs: 0,
      database: null,
      trials: { count: Math.max(0, ...cs.map((c) => c.stats?.trials ?? 1)), shuffleSeed: 0 },
      nodes: [],
      packages: {},
    };
    return { meta, cells: cs };
  });
  return { runs: runs.sort((a, b) => a.meta.startedAt.localeCompare(b.meta.startedAt)), scenarios };
}

/**
 * The reference of a one-run report: among the runs started before `run`, the complete ones of the
 * same profile, the one that measured the most of `run`'s cells (contender × scenario; the newest
 * on a tie); null when none shares a cell. On a fresh clone after `just bake-off` that is the
 * committed bake-off.
 */
export function referenceRunOf(runs: readonly SnapshotRun[], run: SnapshotRun): SnapshotRun | null {
  const key = (c: { label: string; scenario: string }) => `${c.label}\u0000${c.scenario}`;
  const mine = new Set(run.cells.map(key));
  const shared = (r: SnapshotRun) => r.cells.filter((c) => mine.has(key(c))).length;
  let best: SnapshotRun | null = null;
  let bestShared = 0;
  for (const r of runs) {
    if (r === run || r.meta.state !== 'complete' || r.meta.profile !== run.meta.profile) continue;
    if (r.meta.startedAt >= run.meta.startedAt) continue;
    const n = shared(r);
    if (n > bestShared || (n === bestShared && n > 0 && best && r.meta.startedAt >= best.meta.startedAt)) {
      best = r;
      bestShared = n;
    }
  }
  return best;
}

/**
 * The snapshot restricted to one run (`--run ID`; a unique prefix of the id is accepted).
 * Throws UserError naming the known runs when no run (or more than one) matches.
 * It carries only the run's own `just why` records and, with `withReferenceRun` (the bake-off's own
 * report), its reference run (`referenceRunOf`).
 */
export function selectRun(s: ReportSnapshot, runId: string, o: { withReferenceRun?: boolean } = {}): ReportSnapshot {
  const exact = s.runs.filter((r) => r.meta.runId === runId);
  const hits = exact.length ? exact : s.runs.filter((r) => r.meta.runId.startsWith(runId));
  const [hit] = hits;
  if (hit && hits.length === 1) {
    const referenceRun = o.withReferenceRun ? referenceRunOf(s.runs, hit) : null;
    return {
      runs: hits,
      scenarios: s.scenarios,
      // `just why` records are runs of their own: a one-run report holds only its run's.
      ...(s.why ? { why: s.why.filter((w) => w.runId === hit.meta.runId) } : {}),
      ...(s.selftest !== undefined ? { selftest: s.selftest } : {}),
      ...(s.flames ? { flames: s.flames } : {}),
      ...(s.references ? { references: s.references } : {}),
      ...(referenceRun ? { referenceRun } : {}),
      controlRuns: s.controlRuns ?? s.runs.filter((r) => r.cells.some(isControl)),
    };
  }
  const known = s.runs
    .slice(-8)
    .map((r) => r.meta.runId)
    .join(', ');
  throw new UserError(
    hits.length > 1
      ? `--run ${runId} matches ${hits.length} runs (${hits.map((r) => r.meta.runId).join(', ')}); give more of the id`
      : `no run named '${runId}' in the results.${known ? ` Latest runs: ${known}` : ' No runs yet: run `npx just bench-all`.'}`,
  );
}
