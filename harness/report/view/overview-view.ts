/**
 * The report's overview: which profile and which table answer for each scenario, the winners,
 * and the % of baseline matrix (contenders by their mean log ratio, other-run rows marked ‡ with
 * the note that says how to rank them), from the report's tables (table-view.ts).
 */
import { DEFAULT_PROFILE, PROFILES } from '../../core/profiles.ts';
import { MIN_CI_TRIALS } from '../../analysis/stats.ts';
import type { MatrixView, TableView, WinnerView } from '../view.ts';

/**
 * The one profile of the overview's closed-loop tables (one first screen never mixes
 * load shapes): the default profile when a closed-loop table has it, else the profile with the
 * most closed-loop tables (the first in PROFILES order on a tie); null without closed-loop tables.
 */
export function overviewProfile(tables: TableView[]): string | null {
  const closed = tables.filter((t) => !t.capacity);
  if (closed.some((t) => t.profile === DEFAULT_PROFILE)) return DEFAULT_PROFILE;
  const count = (p: string) => closed.filter((t) => t.profile === p).length;
  const names = [...new Set(closed.map((t) => t.profile))];
  const order = (p: string) => PROFILES.findIndex((x) => x.name === p);
  return names.sort((a, b) => count(b) - count(a) || order(a) - order(b))[0] ?? null;
}

/**
 * The table that answers for each scenario in the overview: a closed-loop table before a
 * capacity one (capacity tables have their own matrix), then the one with the most ranked rows,
 * then the default profile, then the harness's pinned Node major, then the first in table order.
 */
export function primaryTables(tables: TableView[]): TableView[] {
  const best = new Map<string, { t: TableView; score: number[] }>();
  const pinned = Number(process.versions.node.split('.')[0]);
  tables.forEach((t, i) => {
    const score = [
      t.capacity ? 0 : 1,
      t.rows.filter((r) => r.rank !== null).length,
      t.profile === DEFAULT_PROFILE ? 1 : 0,
      t.nodeMajor === pinned ? 1 : 0,
      -i,
    ];
    const prev = best.get(t.scenario);
    const k = prev ? score.findIndex((x, j) => x !== prev.score[j]) : -1;
    if (!prev || (k >= 0 && (score[k] ?? 0) > (prev.score[k] ?? 0))) best.set(t.scenario, { t, score });
  });
  return tables.filter((t) => best.get(t.scenario)?.t === t);
}

/** Each overview table's winners (rank 1) with the margin over the next row, or why nobody is ranked. */
export function winnersOf(primary: TableView[]): WinnerView[] {
  return primary.map((t) => {
    const ranked = t.rows.filter((r) => r.rank !== null);
    const winners = ranked.filter((r) => r.rank === 1).map((r) => r.label);
    let margin: string | null = null;
    if (!ranked.length) margin = `nobody ranked: no cell has ${MIN_CI_TRIALS} trials`;
    else if (winners.length === 1 && t.margin) margin = t.margin;
    return {
      scenario: t.scenario,
      tableId: t.id,
      profile: t.profile,
      driver: t.driver,
      nodeMajor: t.nodeMajor,
      baseline: t.baseline,
      winners,
      margin,
    };
  });
}

/** The overview's % of baseline matrix: per scenario (its primary table) each contender's ratio, rank and marks. */
export function matrixOf(primary: TableView[], profile: string | null): MatrixView {
  const cells: MatrixView['cells'] = {};
  const joined = new Map<string, { label: string; runId: string; scenarios: string[] }>();
  for (const t of primary) {
    const row: MatrixView['cells'][string] = {};
    cells[t.scenario] = row;
    for (const r of t.rows.filter((x) => !x.otherRun)) {
      row[r.label] = {
        ratio: r.ratio,
        rank: r.rank,
        status: r.failed ? 'failed' : r.rank === null ? 'not ranked' : 'ok',
        // Noisy is said once per table (MatrixView.noisy, on the scenario's column), not per cell.
        // '≥' only on a ratio of solo requests/s: a client-bound solo window bounds requests/s, not an
        // interleaved ratio of requests per CPU-second (a cell with interleaved rounds).
        flags: [r.clientBound && !r.paired ? '≥' : '', !r.failed && r.rank === null ? '†' : ''].filter(Boolean),
        isBaseline: r.isBaseline,
      };
    }
    // A contender measured only in another run: a marked row by its ratio to that run's own baseline, never ranked.
    for (const r of t.rows.filter((x) => x.otherRun)) {
      row[r.label] = {
        ratio: r.ratio,
        rank: null,
        status: r.failed ? 'failed' : 'other run',
        flags: ['‡'],
        isBaseline: false,
        runId: r.runId,
      };
      const k = `${r.label}|${r.runId}`;
      const j = joined.get(k) ?? { label: r.label, runId: r.runId, scenarios: [] };
      j.scenarios.push(t.scenario);
      joined.set(k, j);
    }
  }
  return {
    scenarios: primary.map((t) => t.scenario),
    contenders: orderedLabels(primary),
    families: [...new Set(primary.map((t) => t.baseline))].map((baseline) => {
      const ts = primary.filter((t) => t.baseline === baseline);
      return { baseline, scenarios: ts.map((t) => t.scenario), contenders: orderedLabels(ts) };
    }),
    cells,
    noisy: Object.fromEntries(
      primary.map((t) => [t.scenario, t.rows.filter((r) => !r.otherRun && r.noisy).map((r) => r.label)]),
    ),
    joined: [...joined.values()],
    profile,
    joinedNote: joinedNote([...joined.values()], primary),
  };
}

/**
 * "‡ measured in a later run than its scenario's table: `koa` (run `X`: ping, json) …, by the
 * ratio to that run's own baseline, not ranked; to rank it, …": null without such rows.
 */
function joinedNote(joined: MatrixView['joined'], primary: TableView[]): string | null {
  if (!joined.length) return null;
  const runs = new Map(primary.map((t) => [t.scenario, t.runId]));
  const who = joined.map((j) => `\`${j.label}\` (run \`${j.runId}\`: ${j.scenarios.join(', ')})`).join('; ');
  const labels = [...new Set(joined.map((j) => j.label))].join(' ');
  const tableRuns = [...new Set(primary.map((t) => runs.get(t.scenario)))].map((r) => `\`${r}\``).join(', ');
  const it = labels.includes(' ') ? 'them' : 'it';
  const how = `\`npx just bake-off\` (every contender), or \`npx just bench ${labels} <the contenders to compare it with>\``;
  return [
    `‡ measured in another run than its scenario's table (${tableRuns}): ${who};`,
    'shown by its ratio to the baseline of its own run, with its interval, and not ranked.',
    `To rank ${it}, measure ${it} in one run with the others: ${how}.`,
  ].join(' ');
}

/**
 * The row labels of `tables` (other-run rows too, by their ratio to their own run's baseline), by
 * their mean log ratio to the baseline over these tables (best first), then by name.
 */
function orderedLabels(tables: TableView[]): string[] {
  const score = new Map<string, number[]>();
  for (const t of tables)
    for (const r of t.rows) if (r.ratio) score.set(r.label, [...(score.get(r.label) ?? []), Math.log(r.ratio.figure)]);
  const labels = [...new Set(tables.flatMap((t) => t.rows.map((r) => r.label)))];
  const mean = (xs: number[] | undefined) => (xs?.length ? xs.reduce((a, b) => a + b, 0) / xs.length : -99);
  return labels.sort((a, b) => mean(score.get(b)) - mean(score.get(a)) || a.localeCompare(b));
}
