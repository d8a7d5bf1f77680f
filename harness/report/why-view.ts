/**
 * The why data of the report's view (`just why`), from the snapshot's
 * `just why` records and flame graphs: the latest profiled cell per (contender, scenario) with its
 * top buckets and its flame graph tree (or why there is none), the latest difference from the
 * baseline per contender, the "Findings" entries and the notes of the detail tables' rows.
 *
 * Finding rule (why-text.ts `FAR_BELOW`, 1.5): in the newest why run that profiled a contender and
 * its reference (the scenario's baseline, or `--against`) in one scenario, the contender's CPU per
 * request (/proc, shared out by the profile) is ≥ 1.5 × the reference's, i.e. it serves at most
 * about 2/3 of the reference's requests per CPU-second. Severity `info`: a cost explained, not a
 * failure. The finding names the buckets that add the most µs of CPU per request and the why run id.
 */
import { flameTree } from '../analysis/flame.ts';
import { flameKey, type WhyCell, type WhyDiff, type WhyRecord } from '../store/why-store.ts';
import type { ReportSnapshot } from './snapshot.ts';
import type { FindingView, WhyCellView, WhyView } from './view.ts';
import { culprits, FAR_BELOW, latestCells, latestDiffs, nameOf, sgn, us } from './why-text.ts';

/** Buckets listed per cell in the view. */
const TOP = 5;

/** The anchor id of a profiled cell's block in the HTML report. */
export function whyAnchor(runId: string, cellId: string): string {
  return `why-${`${runId}-${cellId}`.replace(/[^A-Za-z0-9_-]+/g, '-')}`;
}

function flameOf(s: ReportSnapshot, record: WhyRecord, cell: WhyCell): WhyCellView['flame'] {
  if (!cell.flameFile)
    return {
      ok: false,
      reason: `no flame graph: why run ${record.runId} wrote none (runs before flame graphs kept only the raw, uncommitted profile)`,
    };
  const f = s.flames?.get(flameKey(record.runId, cell.cellId));
  if (!f) return { ok: false, reason: `flame graph not shown: ${cell.flameFile} was not read` };
  if (!f.ok) return { ok: false, reason: f.reason };
  return { ok: true, totalUs: f.totalUs, minShare: f.minShare, tree: flameTree(f.stacks, nameOf(cell)) };
}

/** The differences that make a finding: CPU per request ≥ FAR_BELOW × the reference's, newest why run first per cell. */
function farBelow(s: ReportSnapshot): { d: WhyDiff; record: WhyRecord; a: WhyCell; b: WhyCell }[] {
  return latestDiffs(s, latestCells(s)).flatMap(({ d, record }) => {
    const a = record.cells.find((c) => c.cellId === d.a);
    const b = record.cells.find((c) => c.cellId === d.b);
    return a && b && d.bTotalNs > 0 && d.aTotalNs >= FAR_BELOW * d.bTotalNs ? [{ d, record, a, b }] : [];
  });
}

/** The why part of the report's view; null when no why record covers the report's contenders. */
export function whyView(s: ReportSnapshot): WhyView | null {
  const cells = latestCells(s);
  if (!cells.length) return null;
  return {
    cells: cells.map(({ cell, record }) => ({
      anchor: whyAnchor(record.runId, cell.cellId),
      label: nameOf(cell),
      scenario: cell.scenario,
      isBaseline: cell.isBaseline,
      runId: record.runId,
      profile: record.profile,
      samplingIntervalUs: record.samplingIntervalUs,
      totalNs: cell.totalNs ?? 0,
      requestsPerSec: cell.requestsPerSec,
      top: cell.buckets
        .filter((b) => b.ns !== null)
        .slice(0, TOP)
        .map((b) => ({ bucket: b.bucket, ns: b.ns ?? 0, share: b.share })),
      flame: flameOf(s, record, cell),
    })),
    diffs: latestDiffs(s, cells).map(({ d, record }) => {
      const a = record.cells.find((c) => c.cellId === d.a);
      const b = record.cells.find((c) => c.cellId === d.b);
      return {
        label: a ? nameOf(a) : d.a,
        reference: b ? nameOf(b) : d.b,
        scenario: d.scenario,
        runId: record.runId,
        anchor: whyAnchor(record.runId, d.a),
        aTotalNs: d.aTotalNs,
        bTotalNs: d.bTotalNs,
        diffNs: d.diffNs,
        parts: d.parts.slice(0, 8).map((p) => ({ bucket: p.bucket, aNs: p.aNs, bNs: p.bNs, diffNs: p.diffNs })),
        restNs: d.diffNs - d.parts.slice(0, 8).reduce((x, p) => x + p.diffNs, 0),
      };
    }),
  };
}

/** The "Findings" entries of the why data (module comment): one per contender and scenario. */
export function whyIssueFindings(s: ReportSnapshot): FindingView[] {
  return farBelow(s).map(({ d, record, a, b }) => ({
    severity: 'info',
    label: nameOf(a),
    scenario: d.scenario,
    profile: `why · ${record.profile}`,
    title: `Uses ${(d.aTotalNs / d.bTotalNs).toFixed(1)}× the CPU per request of ${nameOf(b)}`,
    evidence: [
      `${us(d.aTotalNs)} vs ${us(d.bTotalNs)} µs of CPU per request (${sgn(d.diffNs)}) in one profiled window each;`,
      `the packages adding the most: ${culprits(d)} µs/request`,
      `(why run \`${record.runId}\`; rule: ≥ ${FAR_BELOW}× the reference's CPU per request).`,
      `Where the time goes: the Why section's flame graph of \`${nameOf(a)}\`,`,
      `or \`npx just why ${a.contender} --scenario ${d.scenario}\`.`,
    ].join(' '),
  }));
}

/**
 * The note of a detail table's row with a why finding, by `<label>|<scenario>`: "CPU 2.0× node-http
 * per request: express +8.90, … µs (why run …)", and the anchor of the cell's Why block.
 */
export function whyRowNotes(s: ReportSnapshot): Map<string, { text: string; anchor: string }> {
  const out = new Map<string, { text: string; anchor: string }>();
  for (const { d, record, a, b } of farBelow(s))
    out.set(`${nameOf(a)}|${d.scenario}`, {
      text: `why: ${(d.aTotalNs / d.bTotalNs).toFixed(1)}× the CPU/request of ${nameOf(b)}; ${culprits(d, 2)} µs (why run ${record.runId})`,
      anchor: whyAnchor(record.runId, a.cellId),
    });
  return out;
}
