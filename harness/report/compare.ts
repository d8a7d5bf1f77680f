/**
 * Comparing two runs, criterion.rs style: per cell present in both, "improved", "regressed" or
 * "no change". A change counts only when it is larger than the noise threshold (default 5%)
 * AND the bootstrap 95% interval of the ratio new/old excludes 1; otherwise "no change".
 *
 * Runs are named by run id (a folder of results/runs/), a path to a run folder, or a saved
 * baseline (`results/baselines/<name>/`, a copy of a run's cells and meta made by
 * `just baseline <name> [run]`).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CellResult, RunMeta } from '../store/results.ts';
import { UserError } from '../core/errors.ts';
import { cellRps, ratioCI } from '../analysis/stats.ts';

export type ChangeVerdict = 'improved' | 'regressed' | 'no change';

export interface CellChange {
  cellId: string;
  label: string;
  scenario: string;
  old: number;
  new: number;
  /** new/old − 1 */
  change: number;
  ci95: [number, number];
  verdict: ChangeVerdict;
}

export interface Comparison {
  a: string;
  b: string;
  threshold: number;
  changes: CellChange[];
  /** Cells measured in only one of the runs, or not ok in one. */
  unmatched: string[];
  counts: Record<ChangeVerdict, number>;
  /** Fraction of matched cells with "no change". */
  noChangeFraction: number;
}

/** Reads a run (or baseline) folder: its meta and ok cells. Throws UserError when missing. */
export function readRun(
  resultsDir: string,
  ref: string,
  kind: 'run' | 'baseline' = 'run',
): { meta: RunMeta; cells: CellResult[]; dir: string } {
  const candidates =
    kind === 'baseline'
      ? [path.join(resultsDir, 'baselines', ref)]
      : [path.join(resultsDir, 'runs', ref), path.resolve(ref)];
  const dir = candidates.find((d) => fs.existsSync(path.join(d, 'meta.json')));
  if (!dir) {
    const where = kind === 'baseline' ? path.join(resultsDir, 'baselines') : path.join(resultsDir, 'runs');
    const known = fs.existsSync(where) ? fs.readdirSync(where).slice(-10) : [];
    throw new UserError(
      `no ${kind} '${ref}' (looked in ${where}). ${known.length ? `Known: ${known.join(', ')}` : `No ${kind}s yet.`}`,
    );
  }
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
  const cellDir = path.join(dir, 'cells');
  const cells = fs.existsSync(cellDir)
    ? fs
        .readdirSync(cellDir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => JSON.parse(fs.readFileSync(path.join(cellDir, f), 'utf8')) as CellResult)
    : [];
  return { meta, cells, dir };
}

/** Saves a run's cells and meta as baseline `name` (overwrites an older baseline of that name). */
export function saveBaseline(resultsDir: string, runRef: string, name: string): string {
  if (!/^[\w.-]+$/.test(name))
    throw new UserError(`baseline name '${name}' may use letters, digits, '.', '_' and '-' only`);
  const { dir } = readRun(resultsDir, runRef);
  const dest = path.join(resultsDir, 'baselines', name);
  fs.rmSync(dest, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  fs.cpSync(dir, dest, { recursive: true, filter: (src) => !src.includes(`${path.sep}logs`) });
  return dest;
}

/** Compares cells of run `a` (old) with run `b` (new). */
export function compareRuns(
  aName: string,
  a: CellResult[],
  bName: string,
  b: CellResult[],
  threshold = 0.05,
): Comparison {
  const key = (c: CellResult) => c.cellId;
  const oldMap = new Map(a.filter((c) => c.status === 'ok').map((c) => [key(c), c]));
  const newMap = new Map(b.filter((c) => c.status === 'ok').map((c) => [key(c), c]));
  const changes: CellChange[] = [];
  for (const [id, nc] of newMap) {
    const oc = oldMap.get(id);
    if (!oc) continue;
    const r = ratioCI(nc, oc);
    const change = r.ratio - 1;
    const excludesOne = r.ci95[0] > 1 || r.ci95[1] < 1;
    const verdict: ChangeVerdict =
      Math.abs(change) > threshold && excludesOne ? (change > 0 ? 'improved' : 'regressed') : 'no change';
    changes.push({
      cellId: id,
      label: nc.label,
      scenario: nc.scenario,
      old: cellRps(oc),
      new: cellRps(nc),
      change,
      ci95: [r.ci95[0] - 1, r.ci95[1] - 1],
      verdict,
    });
  }
  const unmatched = [...new Set([...oldMap.keys(), ...newMap.keys(), ...a.map(key), ...b.map(key)])]
    .filter((id) => !(oldMap.has(id) && newMap.has(id)))
    .sort();
  const counts = { improved: 0, regressed: 0, 'no change': 0 } as Record<ChangeVerdict, number>;
  for (const c of changes) counts[c.verdict]++;
  changes.sort((x, y) => x.label.localeCompare(y.label) || x.scenario.localeCompare(y.scenario));
  return {
    a: aName,
    b: bName,
    threshold,
    changes,
    unmatched,
    counts,
    noChangeFraction: changes.length ? counts['no change'] / changes.length : 0,
  };
}

/** The comparison as Markdown (also printed by `just compare`). */
export function renderComparison(c: Comparison): string {
  const lines = [
    `# ${c.b} vs ${c.a}`,
    '',
    `Noise threshold ±${(c.threshold * 100).toFixed(0)}%; a change also needs its 95% bootstrap interval to exclude 0.`,
    '',
    `${c.changes.length} cells: ${c.counts.improved} improved, ${c.counts.regressed} regressed, ${c.counts['no change']} no change (${(c.noChangeFraction * 100).toFixed(0)}% no change).`,
    '',
    '| contender | scenario | old req/s | new req/s | change (95% CI) | verdict |',
    '|---|---|---:|---:|---:|---|',
  ];
  const pct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}%`;
  for (const ch of c.changes)
    lines.push(
      `| ${ch.label} | ${ch.scenario} | ${Math.round(ch.old).toLocaleString('en-US')} | ${Math.round(ch.new).toLocaleString('en-US')} | ${pct(ch.change)} (${pct(ch.ci95[0])} … ${pct(ch.ci95[1])}) | ${ch.verdict === 'no change' ? 'no change' : `**${ch.verdict}**`} |`,
    );
  if (c.unmatched.length) lines.push('', `Not compared (missing or failed in one run): ${c.unmatched.join(', ')}`);
  return `${lines.join('\n')}\n`;
}
