/**
 * Tail latency as a finding only when it is the contender's: in one same-run table (same load),
 * p99 over RULES.tailRatio × p50 and at least RULES.tailMinP99Ms, and that tail shape
 * RULES.peerTailFactor × the median of at least RULES.minTailPeers peers. A long tail under
 * closed-loop load alone is coordinated omission: measurement-notes.ts says it as a note.
 */
import type { CellResult } from '../store/results.ts';
import { cellLatency, median } from '../analysis/stats.ts';
import { fmtMs, sig } from '../core/format.ts';
import { connectionsOf, type Finding, hintFor, type IssueScenario, RULES } from './finding-rules.ts';

/**
 * The tail shape of a closed-loop cell, p99 ÷ p50 (null for capacity cells, cells without
 * latency, and a p50 of 0). Closed-loop load holds every connection busy, so at saturation the
 * driver's queue is in every latency (coordinated omission): a long tail alone is a measurement
 * condition, compared only against peers measured at the same load.
 */
export function tailShape(c: CellResult): { p50: number; p99: number; shape: number } | null {
  const lat = c.capacity ? null : cellLatency(c);
  return lat && lat.p50 > 0 ? { p50: lat.p50, p99: lat.p99, shape: lat.p99 / lat.p50 } : null;
}

/**
 * Tail latency that is the contender's (minor): in one same-run table (scenario, profile, driver,
 * Node major: the same connections), p99 ≥ RULES.tailMinP99Ms, p99 over RULES.tailRatio × p50,
 * and that tail shape at least RULES.peerTailFactor × the median shape of at least
 * RULES.minTailPeers other contenders of the table. Said with the numbers of both.
 */
export function peerTailFindings(
  healthy: CellResult[],
  out: Finding[],
  focusOf: (c: CellResult) => IssueScenario['focus'],
): void {
  const groups = new Map<string, CellResult[]>();
  for (const c of healthy) {
    const k = `${c.runId}|${c.scenario}|${c.profile}|${c.driver}|${c.node.major}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  for (const cells of groups.values())
    for (const c of cells) {
      const x = peerTail(c, cells);
      if (!x) continue;
      const conns = connectionsOf(c.profile);
      const mine = `p99 ${fmtMs(sig(x.p99))} ms is ${x.shape.toFixed(0)}× its p50 ${fmtMs(sig(x.p50))} ms`;
      const peers = `the ${x.peers} other contenders of the table have a median p99 of ${x.median.toFixed(1)}× their p50 (p99 ${fmtMs(sig(x.peerP99))} ms)`;
      const queue = focusOf(c) === 'http-client' ? c.tags.httpClient : 'the handler';
      out.push({
        severity: 'minor',
        rule: 'tail-latency',
        label: c.label,
        scenario: c.scenario,
        profile: c.profile,
        runId: c.runId,
        title: 'tail latency far above its peers at the same load',
        evidence: `${mine} at ${conns ? `${conns} connections` : 'the same load'} (run ${c.runId}), where ${peers} — GC pauses, event-loop stalls or a queue in front of ${queue}; ${hintFor(c, focusOf(c))}`,
      });
    }
}

/**
 * A cell's long tail against its table's other contenders (`cells`, same load), when it is the
 * contender's (see peerTailFindings); null otherwise.
 */
export function peerTail(
  c: CellResult,
  cells: readonly CellResult[],
): { p50: number; p99: number; shape: number; peers: number; median: number; peerP99: number } | null {
  const t = tailShape(c);
  if (!t || t.p99 < RULES.tailMinP99Ms || t.shape <= RULES.tailRatio) return null;
  const peers = cells.flatMap((o) => (o !== c && o.label !== c.label ? [tailShape(o)] : [])).filter((x) => x !== null);
  if (peers.length < RULES.minTailPeers) return null;
  const med = median(peers.map((p) => p.shape));
  if (t.shape < RULES.peerTailFactor * med) return null;
  return { ...t, peers: peers.length, median: med, peerP99: median(peers.map((p) => p.p99)) };
}
