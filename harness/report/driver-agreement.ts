/**
 * Do the load generators agree? ("per scenario, a line says whether the drivers agree on
 * the order (Spearman's ρ between the wrk, autocannon and k6 rankings of the same contenders) and
 * names the contenders that move. A driver that was the bottleneck says so.")
 *
 * Per scenario and Node major, among the closed-loop tables (capacity has its own ρ line), the
 * table of each driver with the most ranked rows (then the first in table order) stands for that
 * driver. For every pair of drivers, the contenders measured in both (requests/s figure, not
 * failed, not from another run) are ordered by figure within each table (its own run: figures of
 * two runs are never compared, only the orders); Spearman's ρ of the two orders
 * (analysis/capacity.ts `spearman`, ties at their average rank) and the contenders whose position
 * moves most (at most three) make the sentence. A table with client-bound rows says how many: those
 * figures are the driver's limit, a lower bound.
 */
import { averageRanks, spearman } from '../analysis/capacity.ts';
import { fmtRho, ordinal } from './capacity-text.ts';
import type { DriverAgreementView, TableView } from './view.ts';
import { plural } from '../core/format.ts';

/** The table standing for each driver of one scenario × Node major (most ranked rows, then first). */
function byDriver(tables: TableView[]): Map<string, TableView> {
  const out = new Map<string, TableView>();
  const ranked = (t: TableView) => t.rows.filter((r) => r.rank !== null).length;
  for (const t of tables) {
    const prev = out.get(t.driver);
    if (!prev || ranked(t) > ranked(prev)) out.set(t.driver, t);
  }
  return out;
}

/** Contender → requests/s of a table's measured rows. */
function figures(t: TableView): Map<string, number> {
  return new Map(
    t.rows.filter((r) => !r.otherRun && !r.failed && r.rps).map((r) => [r.label, r.rps?.figure ?? Number.NaN]),
  );
}

/** One pair of drivers: ρ over their common contenders and the moves, as a Markdown clause. */
function pairClause(a: TableView, b: TableView): { rho: number | null; n: number; text: string } {
  const fa = figures(a);
  const fb = figures(b);
  const common = [...fa.keys()].filter((l) => fb.has(l));
  const who = `${a.driver} (${a.profile}, run \`${a.runId}\`) and ${b.driver} (${b.profile}, run \`${b.runId}\`)`;
  if (common.length < 2) return { rho: null, n: common.length, text: `${who}: fewer than 2 contenders in common` };
  // Descending figures: rank 1 = the fastest.
  const ra = averageRanks(common.map((l) => -(fa.get(l) ?? 0)));
  const rb = averageRanks(common.map((l) => -(fb.get(l) ?? 0)));
  const rho = spearman(ra, rb);
  const moves = common
    .map((l, i) => ({ l, a: ra[i] ?? 0, b: rb[i] ?? 0 }))
    .filter((m) => m.a !== m.b)
    .sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b) || x.l.localeCompare(y.l))
    .slice(0, 3)
    .map((m) => `\`${m.l}\` ${place(m.a)} by ${a.driver}, ${place(m.b)} by ${b.driver}`);
  const rhoText = rho === null ? 'Spearman’s ρ undefined (one order is all ties)' : `Spearman’s ρ = ${fmtRho(rho)}`;
  const body = moves.length ? `${rhoText}; ${moves.join('; ')}` : 'the same order';
  return { rho, n: common.length, text: `${who} over ${common.length} contenders: ${body}` };
}

const place = (r: number): string => (Number.isInteger(r) ? ordinal(r) : `${ordinal(Math.floor(r))}=`);

/** A driver table's client-bound rows as a clause, or null. */
function boundClause(t: TableView): string | null {
  const bound = t.rows.filter((r) => r.clientBound && !r.otherRun).map((r) => `\`${r.label}\``);
  if (!bound.length) return null;
  return `${t.driver} was the bottleneck for ${plural(bound.length, 'row')} (${bound.slice(0, 4).join(', ')}${bound.length > 4 ? ', …' : ''}: lower bounds)`;
}

/**
 * One sentence per scenario × Node major measured by at least two drivers (closed loop), in the
 * order of first appearance; [] when no scenario has two drivers.
 */
export function driverAgreementOf(tables: TableView[]): DriverAgreementView[] {
  const groups = new Map<string, TableView[]>();
  for (const t of tables.filter((x) => !x.capacity)) {
    const k = `${t.scenario}\u0000${t.nodeMajor}`;
    groups.set(k, [...(groups.get(k) ?? []), t]);
  }
  const out: DriverAgreementView[] = [];
  for (const group of groups.values()) {
    const drivers = [...byDriver(group).values()];
    if (drivers.length < 2) continue;
    const first = drivers[0];
    if (!first) continue;
    const pairs: DriverAgreementView['pairs'] = [];
    const clauses: string[] = [];
    drivers.forEach((a, i) => {
      for (const b of drivers.slice(i + 1)) {
        const p = pairClause(a, b);
        pairs.push({ a: a.driver, b: b.driver, rho: p.rho, n: p.n });
        clauses.push(p.text);
      }
    });
    const bound = drivers.map(boundClause).filter((x): x is string => x !== null);
    const text = `**${first.scenario}** (Node ${first.nodeMajor}): ${clauses.join('; ')}.${bound.length ? ` ${bound.join('; ')}.` : ''}`;
    out.push({ scenario: first.scenario, nodeMajor: first.nodeMajor, pairs, text });
  }
  return out;
}
