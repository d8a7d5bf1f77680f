/**
 * A one-run report's reference (snapshot.ts `referenceRunOf`): the same scenarios' "% of baseline"
 * in an older run — on a fresh clone, the committed bake-off of another machine — beside this
 * run's own, so a reader sees where their machine's answer differs from the one they may have
 * read. It is a reference only: figures of two machines, drivers or days are never one table,
 * never ranked together, and the run's overview, winners and exit code are its own.
 */
import type { Estimate } from '../analysis/stats.ts';
import { sameMachine } from '../core/machine.ts';
import type { RunMeta } from '../store/results.ts';
import type { MatrixView, ReferenceRunView } from './view.ts';

/** The run's and the reference's matrices and metas, as view-build.ts has them. */
export interface ReferenceInputs {
  meta: RunMeta;
  matrix: MatrixView;
  /** The run's own meta (for the host comparison); undefined when the view has none. */
  yours: RunMeta | undefined;
  yourMatrix: MatrixView;
  /** The load driver of the reference's overview tables. */
  driver: string | null;
  /** The reference run's cells. */
  cells: number;
}

/** A matrix cell's ratio (1 for the baseline row), or null when it has none. */
function ratioOf(m: MatrixView, scenario: string, label: string): Estimate | null {
  const c = m.cells[scenario]?.[label];
  if (!c) return null;
  if (c.isBaseline) return { figure: 1, interval: null, kind: 'none', n: 0 };
  return c.ratio;
}

/**
 * The reference view: per baseline family of the run's matrix, the scenarios both runs ranked and
 * this run's non-baseline contenders, with the reference's and the run's "% of
 * baseline" side by side; null when the two share no scenario.
 */
export function referenceOf(x: ReferenceInputs): ReferenceRunView | null {
  const families: ReferenceRunView['families'] = [];
  const pairs: ReferenceRunView['pairs'] = {};
  for (const f of x.yourMatrix.families) {
    const scenarios = f.scenarios.filter((s) => x.matrix.scenarios.includes(s));
    if (!scenarios.length) continue;
    // This run's contenders only: the reference is there to read this run's answer against.
    const contenders = f.contenders.filter((c) =>
      scenarios.some((s) => !x.yourMatrix.cells[s]?.[c]?.isBaseline && !x.matrix.cells[s]?.[c]?.isBaseline),
    );
    for (const s of scenarios) {
      pairs[s] = {};
      for (const c of contenders) {
        const reference = ratioOf(x.matrix, s, c);
        const yours = ratioOf(x.yourMatrix, s, c);
        if (reference || yours) pairs[s][c] = { reference, yours };
      }
    }
    families.push({ baseline: f.baseline, scenarios, contenders });
  }
  if (!families.length) return null;
  const host = x.meta.machine.cpuModel;
  const sameHost = x.yours !== undefined && sameMachine(x.yours.machine, x.meta.machine);
  const day = x.meta.startedAt.slice(0, 10);
  const where = sameHost ? 'a machine like this run’s' : 'another machine';
  return {
    runId: x.meta.runId,
    startedAt: x.meta.startedAt,
    host,
    sameHost,
    driver: x.driver,
    cells: x.cells,
    note: `Reference, not this run: \`${x.meta.runId}\` (${where}: ${host}, ${day}${x.driver ? `, ${x.driver}` : ''}, ${x.cells} cells). Each cell reads “% of baseline there → here”; hosts, drivers and days change the figures, so compare the orders, and rank only within one run.`,
    families,
    pairs,
  };
}

/** "97 → 71": a reference pair as whole percentages ("–" where one side was not measured). */
export function pairText(p: { reference: Estimate | null; yours: Estimate | null } | undefined): string {
  if (!p) return '–';
  const pct = (e: Estimate | null) => (e ? `${Math.round(e.figure * 100)}` : '–');
  return `${pct(p.reference)} → ${pct(p.yours)}`;
}
