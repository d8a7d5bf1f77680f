/**
 * The words and tables of "why a stack is slow", from the attribution records of
 * `just why` runs (store/why-store.ts): the per-cell attribution (bucket → µs of CPU per request and
 * share of busy CPU), the difference of a contender from its scenario's baseline in µs of CPU per
 * request by bucket (the listed parts plus the remainder add up to the difference), and the
 * report's "Why" section with findings. Every figure names its why run id. Text only: the figures
 * come from analysis/why-table.ts.
 *
 * Finding rule (`FAR_BELOW`): a contender whose busy CPU per request in the profiled window is at
 * least 1.5× the baseline's (it serves at most about 2/3 of the baseline's requests per CPU
 * second) gets a finding naming the buckets that add the most CPU per request.
 */
import { SAMPLER_BIAS_LIMIT } from '../analysis/cpu-profile.ts';
import { flamePathShown, type SamplerCheck, type WhyCell, type WhyDiff, type WhyRecord } from '../store/why-store.ts';
import type { ReportSnapshot } from './snapshot.ts';
import { fmtPct } from '../core/format.ts';

/** CPU per request ratio (contender / baseline) from which a finding is written. */
export const FAR_BELOW = 1.5;
/** Buckets shown per cell in the report section (the CLI shows `top` of its own). */
const REPORT_TOP = 5;

/** ns → µs text: 2 decimals under 10 µs, else 1. */
export const us = (ns: number) => (ns / 1000).toFixed(ns !== 0 && Math.abs(ns) < 10_000 ? 2 : 1);
/** A signed difference in µs (ns in), with a real minus sign. */
export const sgn = (ns: number) => `${ns >= 0 ? '+' : '−'}${us(Math.abs(ns))}`;
/** A share as a percentage with one decimal ('' for null). */
export const pct = (x: number | null) => (x === null ? '' : fmtPct(x, 1));
const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);
/** A cell's contender label, `name[variant]` for a variant. */
export const nameOf = (c: WhyCell) => (c.variant ? `${c.contender}[${c.variant}]` : c.contender);

/** One cell's attribution as terminal lines (top `top` buckets by CPU, the rest summed), or its "no profile" reason. */
export function cellText(c: WhyCell, top = 12): string[] {
  const head = `${nameOf(c)} · ${c.scenario}${c.isBaseline ? ' (baseline)' : ''}`;
  if (c.noProfile || c.totalNs === null) return [`${head}: ${c.noProfile ?? 'no profile'}`];
  const idle = c.wallUs > 0 ? (c.idleUs / c.wallUs) * 100 : 0;
  const requests = `${Math.round(c.requests).toLocaleString('en-US')} requests in the profiled window`;
  const rate = `${Math.round(c.requestsPerSec ?? 0).toLocaleString('en-US')} requests/s under the profiler`;
  const source =
    c.cpuSource === 'proc'
      ? '/proc, all threads, shared out by the profile'
      : 'the profile’s busy time: no /proc figure';
  const cpu = `CPU ${us(c.totalNs)} µs/request (${source}; the profile’s busy wall time ${us(c.busyNs ?? 0)} µs/request)`;
  const out = [
    `${head}: ${requests} (${rate}), ${cpu}; ${c.samples.toLocaleString('en-US')} samples, idle ${idle.toFixed(0)}% of the window`,
    `  ${pad('bucket', 34)} ${pad('kind', 10)} ${lpad('µs/request', 10)} ${lpad('share', 7)}`,
  ];
  const busy = c.buckets.filter((b) => b.ns !== null);
  for (const b of busy.slice(0, top))
    out.push(`  ${pad(b.bucket, 34)} ${pad(b.kind, 10)} ${lpad(us(b.ns ?? 0), 10)} ${lpad(pct(b.share), 7)}`);
  const rest = busy.slice(top);
  if (rest.length) {
    const ns = rest.reduce((s, b) => s + (b.ns ?? 0), 0);
    const share = rest.reduce((s, b) => s + (b.share ?? 0), 0);
    out.push(`  ${pad(`(${rest.length} more buckets)`, 34)} ${pad('', 10)} ${lpad(us(ns), 10)} ${lpad(pct(share), 7)}`);
  }
  return out;
}

/** A difference A − B as terminal lines: every part down to `top`, then the remainder, then the total. */
export function diffText(d: WhyDiff, cells: readonly WhyCell[], top = 12): string[] {
  const a = cells.find((c) => c.cellId === d.a);
  const b = cells.find((c) => c.cellId === d.b);
  const shown = d.parts.slice(0, top);
  const restNs = d.diffNs - shown.reduce((s, p) => s + p.diffNs, 0);
  const restCount = d.parts.length - shown.length + d.remainderBuckets;
  const out = [
    `${a ? nameOf(a) : d.a} vs ${b ? nameOf(b) : d.b} on ${d.scenario}: ${sgn(d.diffNs)} µs CPU/request (${us(d.aTotalNs)} vs ${us(d.bTotalNs)})`,
    `  ${pad('bucket', 34)} ${lpad('A', 9)} ${lpad('B', 9)} ${lpad('A − B', 9)}`,
  ];
  for (const p of shown)
    out.push(`  ${pad(p.bucket, 34)} ${lpad(us(p.aNs), 9)} ${lpad(us(p.bNs), 9)} ${lpad(sgn(p.diffNs), 9)}`);
  out.push(
    `  ${pad(`remainder (${restCount} buckets + rounding)`, 34)} ${lpad('', 9)} ${lpad('', 9)} ${lpad(sgn(restNs), 9)}`,
    `  ${pad('= difference', 34)} ${lpad(us(d.aTotalNs), 9)} ${lpad(us(d.bTotalNs), 9)} ${lpad(sgn(d.diffNs), 9)}`,
  );
  return out;
}

/**
 * One sentence on a why run's sampler check (store/why-store.ts `SamplerCheck`): biased when the
 * probe's system call drew more than SAMPLER_BIAS_LIMIT × its share of the loop's time in samples.
 * An absent check (runs before 2026-11-26, `--profile-cpu`) says so.
 */
export function samplerText(c: SamplerCheck | undefined): string {
  if (!c)
    return 'sampler check: not run (why runs before 2026-11-26 and `--profile-cpu` runs before 2026-11-26T19 have none)';
  if (!c.ok) return `sampler check: none (${c.reason})`;
  const head = `sampler check: a system call with ${pct(c.timeShare)} of a probe loop's time drew ${pct(c.sampleShare)} of its samples (${c.samples} samples, every ${c.intervalUs} µs, ${c.cpus === null ? 'unpinned' : `CPU ${c.cpus}`})`;
  return c.sampleShare > SAMPLER_BIAS_LIMIT * c.timeShare
    ? `${head}: on this host the profiler's samples favour the moment a thread enters the kernel, so frames that make system calls ((native): socket reads and writes) are over-counted and the JavaScript just before them under-counted. Read the shares of this run with that in mind (docs/why.md).`
    : `${head}: no bias toward system calls seen.`;
}

/** The terminal output of one why record: each cell's table, then each difference from the baseline. */
export function whyRecordText(r: WhyRecord, top = 12): string {
  const out = [
    `why run ${r.runId}: profile ${r.profile}, one profiled ${r.durationS} s window per cell, V8 sampling every ${r.samplingIntervalUs} µs`,
    samplerText(r.samplerCheck),
    '',
  ];
  for (const c of r.cells) out.push(...cellText(c, top), '');
  if (!r.diffs.length) out.push('No difference from a baseline: the baseline or the contender has no profile.', '');
  for (const d of r.diffs) out.push(...diffText(d, r.cells, top), '');
  return `${out.join('\n')}\n`;
}

/** The buckets adding the most CPU per request (positive parts), "router 4.2 µs, …". */
export function culprits(d: WhyDiff, n = 3): string {
  return d.parts
    .filter((p) => p.diffNs > 0)
    .slice(0, n)
    .map((p) => `${p.bucket} ${sgn(p.diffNs)}`)
    .join(', ');
}

/** The latest record's cell per (contender, variant, scenario) and its record, limited to the snapshot's contenders. */
export function latestCells(s: ReportSnapshot): { cell: WhyCell; record: WhyRecord }[] {
  const shown = new Set(s.runs.flatMap((r) => r.cells.map((c) => `${c.contender}|${c.scenario}`)));
  const latest = new Map<string, { cell: WhyCell; record: WhyRecord }>();
  for (const record of s.why ?? [])
    for (const cell of record.cells)
      if (!cell.noProfile && (shown.size === 0 || shown.has(`${cell.contender}|${cell.scenario}`)))
        latest.set(`${cell.contender}|${cell.variant}|${cell.scenario}`, { cell, record });
  return [...latest.values()];
}

/** The latest difference per (contender cell, scenario) with its record. */
export function latestDiffs(s: ReportSnapshot, cells: { cell: WhyCell }[]): { d: WhyDiff; record: WhyRecord }[] {
  const ids = new Set(cells.map((c) => c.cell.cellId));
  const out = new Map<string, { d: WhyDiff; record: WhyRecord }>();
  for (const record of s.why ?? []) for (const d of record.diffs) if (ids.has(d.a)) out.set(d.a, { d, record });
  return [...out.values()];
}

/** The "Why" findings: one per difference whose CPU per request is ≥ FAR_BELOW × the baseline's. */
export function whyFindings(s: ReportSnapshot): string[] {
  const cells = latestCells(s);
  return latestDiffs(s, cells)
    .filter(({ d }) => d.bTotalNs > 0 && d.aTotalNs >= FAR_BELOW * d.bTotalNs)
    .map(({ d, record }) => {
      const a = record.cells.find((c) => c.cellId === d.a);
      const b = record.cells.find((c) => c.cellId === d.b);
      return `${a ? nameOf(a) : d.a} on ${d.scenario} uses ${(d.aTotalNs / d.bTotalNs).toFixed(1)}× the CPU per request of ${b ? nameOf(b) : d.b} (${us(d.aTotalNs)} vs ${us(d.bTotalNs)} µs, ${sgn(d.diffNs)} µs/request); most of it: ${culprits(d)} µs/request (why run ${record.runId})`;
    });
}

/**
 * The report's "Why" section as Markdown ('' when no why record covers the report's contenders):
 * the top buckets per profiled cell (with its flame graph's folded-stacks file, when it has one), the differences from the baseline with their remainder, and
 * the findings (FAR_BELOW).
 */
export function whyMarkdown(s: ReportSnapshot): string {
  const cells = latestCells(s);
  if (!cells.length) return '';
  const out = [
    '',
    '## Why (CPU profiles)',
    '',
    'From `just why` runs (one window per cell under V8’s sampling profiler, `results/why/`); self CPU time per request by package. Profiled windows are never ranked.',
    '',
    '| contender | scenario | CPU µs/request | top packages (µs/request, share) | why run |',
    '|---|---|---:|---|---|',
  ];
  for (const { cell, record } of cells) {
    const top = cell.buckets
      .filter((b) => b.ns !== null)
      .slice(0, REPORT_TOP)
      .map((b) => `${b.bucket} ${us(b.ns ?? 0)} (${pct(b.share)})`)
      .join(', ');
    out.push(
      `| \`${nameOf(cell)}\`${cell.isBaseline ? ' (baseline)' : ''} | ${cell.scenario} | ${us(cell.totalNs ?? 0)} | ${top} | \`${record.runId}\`${cell.flameFile ? `, flame graph \`${flamePathShown(record.runId, cell.flameFile)}\`` : ''} |`,
    );
  }
  out.push('');
  const checked = [...new Map(cells.map(({ record }) => [record.runId, record])).values()].filter(
    (r) => r.samplerCheck,
  );
  for (const r of checked) out.push(`Why run \`${r.runId}\`, ${samplerText(r.samplerCheck)}`, '');
  for (const { d, record } of latestDiffs(s, cells))
    out.push(`\`\`\`text\n${diffText(d, record.cells, 8).join('\n')}\n\`\`\``, '');
  const findings = whyFindings(s);
  if (findings.length) out.push('**Findings:**', '', ...findings.map((f) => `- ${f}`), '');
  return `${out.join('\n')}\n`;
}

/** The report's "Why" section for the terminal: top buckets per profiled cell and the findings ('' when none). */
export function whyTerminal(s: ReportSnapshot): string {
  const cells = latestCells(s);
  if (!cells.length) return '';
  const out = ['', 'Why (CPU profiles, `just why`):'];
  for (const { cell, record } of cells) {
    const top = cell.buckets
      .filter((b) => b.ns !== null)
      .slice(0, 3)
      .map((b) => `${b.bucket} ${us(b.ns ?? 0)}`)
      .join(', ');
    out.push(`  ${nameOf(cell)} · ${cell.scenario}: ${us(cell.totalNs ?? 0)} µs CPU/request; ${top} (${record.runId})`);
  }
  for (const f of whyFindings(s)) out.push(`  finding: ${f}`);
  return `${out.join('\n')}\n`;
}
