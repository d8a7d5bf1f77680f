/**
 * The HTML exporter: `results/leaderboard.html`, one self-contained page. The page is a template
 * (html/page.html), a stylesheet (html/page.css) and a browser script (html/page.js, plain JS
 * type-checked through JSDoc), read and inlined at render time with Apache ECharts' minified
 * build and the page data (a JSON block), so the file opens offline.
 *
 * Layout: a table of contents; the overview first (how sure, the winners per scenario
 * with ties, a heatmap of "% of baseline" with intervals); the reader's controls (contender
 * filter and highlight, scenario/profile/driver/Node filters); per table the summary sentence,
 * measurement notes, charts (requests/s bars with interval whiskers, client-bound bars hatched
 * and marked ≥, failed rows marked ✕, each value label right of its whisker; a p50/p99 latency
 * dot plot on a log axis; requests per server CPU-second (the median of the interleaved
 * rounds, else the solo windows' requests/s ÷ server CPU, instead of a CPU chart flat at 100%);
 * RSS) and a sortable table (scrolling inside its own box, the rank and contender columns sticky); findings with chips that
 * count what the filters leave; claims; the Node version matrix; a compare view of two runs;
 * runs and method. Tables and text are plain HTML (readable without JavaScript and in print).
 *
 * Capacity: the overview adds the matrix of sustainable requests/s at p99 ≤ each
 * scenario's SLO and the lines comparing that ranking with the closed-loop one; a capacity table
 * has the capacity column set (capacity-text.ts), sustainable-rate bars (≥ hatched when the
 * open-loop driver reached its limit) and a latency-versus-rate chart: small multiples, one panel
 * per contender on shared axes, p99 (log axis) against the offered rate as its median curve
 * (analysis/capacity.ts `medianCurve`), the SLO dashed, no legend.
 *
 * Why: after "Findings", the "Why (CPU profiles)" section of `just why` runs with a
 * flame graph per profiled cell (exporters/why-html.ts); a row with a why finding links to it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { medianCurve } from '../../analysis/capacity.ts';
import type { Estimate } from '../../analysis/stats.ts';
import { fmtBounds, fmtFigure, fmtInt, fmtMs, intervalName, plural, sig } from '../../core/format.ts';
import {
  capacityHeader,
  fmtSlo,
  kneeText,
  SHARE_OF_PEAK_HEADER,
  p99CapText,
  stepsText,
  sustainableText,
  tableRows,
} from '../capacity-text.ts';
import type { ReportSnapshot } from '../snapshot.ts';
import { buildView } from '../view-build.ts';
import { fidelityLine } from '../view/runs-view.ts';
import type { ReferenceRunView, ReportView, RowView, TableView } from '../view.ts';
import { pairText } from '../reference-run.ts';
import type { Exporter, ExportOptions } from './exporter-types.ts';
import { flameScripts, whySectionHtml } from './why-html.ts';
import { FOOTPRINT_SCRIPT, footprintSectionHtml } from './footprint-html.ts';

const ASSETS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'html');

/** The chart library inlined into the page (pinned in package.json). */
export function echartsSource(): string {
  const main = createRequire(import.meta.url).resolve('echarts'); // …/echarts/dist/echarts.js
  return fs.readFileSync(path.join(path.dirname(main), 'echarts.min.js'), 'utf8');
}

/** HTML-escapes text for element content and attribute values. */
export function esc(s: unknown): string {
  return String(s ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Markdown-style inline code (`x`) of the report's sentences → <code>, the rest escaped. */
function md(s: string): string {
  return esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/** JSON that is safe inside <script>: no `<` at all, so no `</script` or `<!--`. */
function scriptJson(data: unknown): string {
  return JSON.stringify(data)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Inline JavaScript that cannot close its <script> element early. */
function scriptJs(src: string): string {
  return src.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

// ---- page data (the browser script's typedefs in html/page.js mirror these) -------------------

interface PageRow {
  label: string;
  rank: number | null;
  status: string;
  failed: boolean;
  otherRun: boolean;
  clientBound: boolean;
  /** A capacity that is a lower bound (the open-loop driver reached its limit). */
  atLeast: boolean;
  noisy: boolean;
  rps: number | null;
  lo: number | null;
  hi: number | null;
  interval: string;
  p50: number | null;
  p99: number | null;
  cpuAvg: number | null;
  cpuPeak: number | null;
  cpuCap: number | null;
  rssAvg: number | null;
  rssPeak: number | null;
  /** Requests per server CPU-second: the median of the interleaved rounds, else the solo windows' requests/s ÷ CPU. */
  eff: number | null;
  /** Where `eff` comes from: 'rounds' (interleaved), 'solo' (requests/s ÷ server CPU), '' (none). */
  effFrom: string;
}

interface PageData {
  contenders: string[];
  tables: {
    id: string;
    scenario: string;
    profile: string;
    driver: string;
    node: string;
    runId: string;
    baseline: string;
    rows: PageRow[];
    /**
     * A capacity table: its SLO (ms) and per contender its median curve (analysis/capacity.ts
     * `medianCurve`) as [offered req/s, p99 ms, steps, steps that held], by rate.
     */
    capacity: { slo: number; curves: { label: string; points: [number, number, number, number][] }[] } | null;
  }[];
  ratios: {
    runId: string;
    key: string;
    label: string;
    scenario: string;
    shape: string;
    figure: number;
    lo: number | null;
    hi: number | null;
    interval: string;
  }[];
  runs: { runId: string; startedAt: string; machine: string }[];
}

function pageRow(r: RowView): PageRow {
  const res = r.resources;
  return {
    label: r.label,
    rank: r.rank,
    status: r.status,
    failed: r.failed,
    otherRun: r.otherRun,
    clientBound: r.clientBound,
    atLeast: r.capacity?.verdict === 'at-least',
    noisy: r.noisy,
    rps: r.rps ? r.rps.figure : null,
    lo: r.rps?.interval ? r.rps.interval[0] : null,
    hi: r.rps?.interval ? r.rps.interval[1] : null,
    interval: r.rps ? intervalName(r.rps) : '',
    p50: r.latencyMs?.p50 ?? null,
    p99: r.latencyMs?.p99 ?? null,
    cpuAvg: res?.cpuAvgPct ?? null,
    cpuPeak: res?.cpuPeakPct ?? null,
    cpuCap: res?.cpuCapPct ?? null,
    rssAvg: res?.rssAvgMiB ?? null,
    rssPeak: res?.rssPeakMiB ?? null,
    eff: r.efficiency ?? (res && res.rpsPerCpuSecond > 0 ? res.rpsPerCpuSecond : null),
    effFrom: r.efficiency !== null ? 'rounds' : res && res.rpsPerCpuSecond > 0 ? 'solo' : '',
  };
}

function pageData(v: ReportView, contenders: string[]): PageData {
  return {
    contenders,
    tables: v.tables.map((t) => ({
      id: t.id,
      scenario: t.scenario,
      profile: t.profile,
      driver: t.driver,
      node: String(t.nodeMajor),
      runId: t.runId,
      baseline: t.baseline,
      rows: t.rows.map(pageRow),
      capacity: t.capacity
        ? {
            slo: t.capacity.sloP99Ms,
            curves: t.rows
              .filter((r) => !r.otherRun && r.capacity?.curve.length)
              .map((r) => ({
                label: r.label,
                points: medianCurve(r.capacity?.curve ?? []).map((p): [number, number, number, number] => [
                  p.rate,
                  p.p99,
                  p.steps,
                  p.held,
                ]),
              })),
          }
        : null,
    })),
    ratios: v.ratios.map((r) => ({
      runId: r.runId,
      key: r.key,
      label: r.label,
      scenario: r.scenario,
      shape: `${r.profile} · ${r.driver} · Node ${r.nodeMajor}`,
      figure: r.ratio.figure,
      lo: r.ratio.interval ? r.ratio.interval[0] : null,
      hi: r.ratio.interval ? r.ratio.interval[1] : null,
      interval: intervalName(r.ratio),
    })),
    runs: v.runs.map((r) => ({ runId: r.runId, startedAt: r.startedAt, machine: r.machine })),
  };
}

// ---- sections ---------------------------------------------------------------------------------

/** Heatmap colour of a ratio: orange below 1, green above, white at 1 (log scale, ±2×). */
export function heatColor(ratio: number): { bg: string; fg: string } {
  const x = Math.max(-1, Math.min(1, Math.log2(Math.max(ratio, 1e-6))));
  const mix = (a: number[], t: number) => a.map((c) => Math.round(255 + (c - 255) * t));
  const rgb = x < 0 ? mix([232, 89, 12], -x * 0.85) : mix([43, 138, 62], x * 0.85);
  return { bg: `rgb(${rgb.join(',')})`, fg: Math.abs(x) > 0.6 ? '#fff' : '#1d2430' };
}

const pctCell = (e: Estimate | null): { text: string; iv: string } =>
  e ? { text: `${fmtFigure(e, { scale: 100 })}%`, iv: fmtBounds(e, { scale: 100 }) } : { text: '–', iv: '' };

/**
 * One baseline family's heatmap (view.ts MatrixFamily): its scenarios as columns, its contenders
 * as rows in the family's order, each cell the % of the family's baseline with its interval.
 */
function familyHeatmap(v: ReportView, f: ReportView['matrix']['families'][number]): string {
  const m = v.matrix;
  const noisy = (s: string) => {
    const who = m.noisy[s] ?? [];
    return who.length
      ? ` <span class="noisy" title="${esc(`noisy rows in this table: ${who.join(', ')}`)}">~</span>`
      : '';
  };
  const head = `<tr><th class="who">contender</th>${f.scenarios.map((s) => `<th class="num">${esc(s)}${noisy(s)}</th>`).join('')}</tr>`;
  const body = f.contenders
    .map((c) => {
      const tds = f.scenarios.map((s) => {
        const x = m.cells[s]?.[c];
        const w = v.winners.find((y) => y.scenario === s);
        const href = w ? ` href="#${esc(w.tableId)}"` : '';
        const at = `data-label="${esc(c)}" data-scenario="${esc(s)}"`;
        if (!x) return `<td ${at} class="na">–</td>`;
        if (x.isBaseline)
          return `<td ${at} data-v="1" class="${x.rank === 1 ? 'rank1' : ''}" title="${esc(`${c} is the baseline of ${s}`)}"><a${href}>100%<span class="iv">baseline</span></a></td>`;
        if (!x.ratio)
          return `<td ${at} title="${esc(x.status)}"><a${href}>${esc(x.status === 'ok' ? '–' : x.status)}</a></td>`;
        const { text, iv } = pctCell(x.ratio);
        const col = heatColor(x.ratio.figure);
        const title = [
          `${c} · ${s}: ${text} of ${w?.baseline ?? 'the baseline'}${iv ? ` (${intervalName(x.ratio)} ${iv}%)` : ''}`,
          x.rank ? ` · rank ${x.rank}` : ' · not ranked',
          x.runId ? ` · measured in run ${x.runId}, ratio to that run’s own baseline` : '',
          x.flags.includes('≥') ? ' · client-bound: lower bound' : '',
        ].join('');
        const td = `<td ${at} data-v="${x.ratio.figure}" class="${x.rank === 1 ? 'rank1' : ''}" style="background:${col.bg};color:${col.fg}"`;
        const flags = x.flags.length ? ` ${esc(x.flags.join(''))}` : '';
        return `${td} title="${esc(title)}"><a${href}>${esc(text)}${flags}${iv ? `<span class="iv">${esc(iv)}</span>` : ''}</a></td>`;
      });
      return `<tr data-label="${esc(c)}"><td class="who"><span class="swatch" data-label="${esc(c)}"></span><code>${esc(c)}</code></td>${tds.join('')}</tr>`;
    })
    .join('\n');
  return `<div class="scroll"><table class="heatmap" data-baseline="${esc(f.baseline)}" aria-label="% of ${esc(f.baseline)}"><caption>% of <code>${esc(f.baseline)}</code></caption><thead>${head}</thead><tbody>
${body}
</tbody></table></div>`;
}

function overviewSection(v: ReportView): string {
  const shape = (w: ReportView['winners'][number]) => `${w.profile} · ${w.driver} · Node ${w.nodeMajor}`;
  const oneShape = new Set(v.winners.map(shape)).size === 1;
  const winners = v.winners.length
    ? `<table class="winners"><thead><tr><th>scenario</th><th>winner(s)</th></tr></thead><tbody>${v.winners
        .map((w) => {
          const scenario = `<a href="#${esc(w.tableId)}" title="${esc(shape(w))}">${esc(w.scenario)}</a>`;
          const sub = oneShape ? '' : `<div class="sub">${esc(shape(w))}</div>`;
          const who = w.winners.map((x) => `<span class="swatch" data-label="${esc(x)}"></span><code>${esc(x)}</code>`);
          const tied = w.winners.length > 1 ? ' <span class="tag">tied</span>' : '';
          const margin = w.margin ? `<div class="sub">${md(w.margin)}</div>` : '';
          return `<tr><td>${scenario}${sub}</td><td>${who.join(' ')}${tied}${margin}</td></tr>`;
        })
        .join('')}</tbody></table>`
    : '<p class="note">No ranked table yet (a cell needs 5 trials to be ranked).</p>';
  return `<section id="overview" class="card" aria-labelledby="h-overview">
<h2 id="h-overview">Overview: which stack, how sure</h2>
<p class="certainty"><strong>How sure:</strong> ${md(v.certainty)} <span class="sub">${esc(v.rankRule)}</span></p>
${v.driverFallback ? `<p class="fallback"><strong>Driver:</strong> ${md(v.driverFallback)}</p>` : ''}
<div class="overview-grid">
<div>${oneShape && v.winners[0] ? `<p class="sub">${esc(shape(v.winners[0]))}</p>` : ''}${winners}</div>
<div>${v.matrix.families.map((f) => familyHeatmap(v, f)).join('\n')}${v.matrix.joinedNote ? `<p class="note joined">${md(v.matrix.joinedNote)}</p>` : ''}
<div class="legend-scale"><span>% of each scenario’s baseline (requests/s), interval below the figure; bold frame = rank 1; ≥ client-bound (lower bound); † not ranked (few trials); ‡ from another run, not ranked; ~ after a scenario: its table has noisy rows (its notes name them)</span></div></div>
</div>
${v.capacity ? capacityOverview(v.capacity) : ''}
${v.referenceRun ? referenceHtml(v.referenceRun) : ''}
</section>`;
}

/** A one-run report's reference run (report/reference-run.ts): its note, then "% of baseline there → here" per family. */
function referenceHtml(r: ReferenceRunView): string {
  const tables = r.families.map((f) => {
    const head = `<tr><th class="who">% of <code>${esc(f.baseline)}</code></th>${f.scenarios.map((s) => `<th class="num">${esc(s)}</th>`).join('')}</tr>`;
    const body = f.contenders
      .map(
        (c) =>
          `<tr><td class="who"><code>${esc(c)}</code></td>${f.scenarios.map((s) => `<td class="num">${esc(pairText(r.pairs[s]?.[c]))}</td>`).join('')}</tr>`,
      )
      .join('\n');
    return `<div class="scroll"><table class="reference" aria-label="% of ${esc(f.baseline)} in the reference run and in this run"><thead>${head}</thead><tbody>\n${body}\n</tbody></table></div>`;
  });
  return `<h3 id="h-reference">Reference run</h3>
<p class="note reference">${md(r.note)}</p>
${tables.join('\n')}`;
}

/** The overview's capacity block: sustainable req/s at p99 ≤ each scenario's SLO (coloured by % of baseline), then the ranking lines. */
function capacityOverview(m: NonNullable<ReportView['capacity']>): string {
  const head = `<tr><th class="who">contender</th>${m.scenarios.map((s) => `<th class="num">${esc(s)}<div class="sub">p99 ≤ ${esc(fmtSlo(m.sloP99Ms[s] ?? Number.NaN))} ms</div></th>`).join('')}</tr>`;
  const body = m.contenders
    .map((c) => {
      const tds = m.scenarios.map((s) => {
        const x = m.cells[s]?.[c];
        const href = ` href="#${esc(m.tableIds[s])}"`;
        const at = `data-label="${esc(c)}" data-scenario="${esc(s)}"`;
        if (!x) return `<td ${at} class="na">–</td>`;
        if (!x.rps) {
          const text = x.verdict === 'never' || x.verdict === 'interrupted' ? x.verdict : x.status;
          return `<td ${at} class="cap-none" title="${esc(x.reason ?? text)}"><a${href}>${esc(text)}</a></td>`;
        }
        const fig = sustainableText(x.rps, x.verdict);
        const iv = fmtBounds(x.rps);
        const pct = x.isBaseline ? 'baseline' : x.ratio ? `${fmtFigure(x.ratio, { scale: 100 })}%` : '';
        const col = x.ratio ? heatColor(x.ratio.figure) : { bg: '#fff', fg: '#1d2430' };
        const title = [
          `${c} · ${s}: ${fig} requests/s at p99 ≤ ${fmtSlo(m.sloP99Ms[s] ?? Number.NaN)} ms`,
          iv ? ` (${intervalName(x.rps)} ${iv})` : '',
          pct ? `, ${pct === 'baseline' ? 'the baseline' : `${pct} of ${m.baselines[s]}`}` : '',
          x.rank ? ` · rank ${x.rank}` : ' · not ranked',
          x.verdict === 'at-least' ? ' · the open-loop driver reached its limit: a lower bound' : '',
        ].join('');
        const td = `<td ${at} data-v="${x.rps.figure}" class="${x.rank === 1 ? 'rank1' : ''}" style="background:${col.bg};color:${col.fg}"`;
        const spans = `${iv ? `<span class="iv">${esc(iv)}</span>` : ''}${pct ? `<span class="iv">${esc(pct)}</span>` : ''}`;
        return `${td} title="${esc(title)}"><a${href}>${esc(fig)}${x.flags.includes('†') ? ' †' : ''}${spans}</a></td>`;
      });
      return `<tr data-label="${esc(c)}"><td class="who"><span class="swatch" data-label="${esc(c)}"></span><code>${esc(c)}</code></td>${tds.join('')}</tr>`;
    })
    .join('\n');
  const legend = [
    'open-loop requests/s sustained with p99 ≤ the scenario’s SLO, its interval and % of the baseline below',
    'colour = % of the baseline',
    'bold frame = rank 1',
    '≥ the open-loop driver reached its limit (a lower bound)',
    'never = not even the lowest rate held the SLO',
    '† not ranked',
  ].join('; ');
  return `<h3 id="h-capacity">Sustainable requests/s at p99 ≤ SLO</h3>
<div class="scroll"><table class="heatmap capacity" aria-label="sustainable requests/s at p99 ≤ SLO"><thead>${head}</thead><tbody>
${body}
</tbody></table></div>
<div class="legend-scale"><span>${legend}</span></div>
<ul class="rankings">${m.rankings.map((r) => `<li>${md(r.text).replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')}</li>`).join('')}</ul>
<p class="sub">Closed-loop ranks are a plain ordering of the closed-loop peaks of the same cells (same run and rounds), without a significance test.</p>
${m.driverLines.length ? `<p class="sub">The open-loop driver’s own ceiling, as measured in the run:</p><ul class="rankings">${m.driverLines.map((l) => `<li>${md(l).replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')}</li>`).join('')}</ul>` : ''}`;
}

function controls(v: ReportView, contenders: string[]): string {
  const uniq = (xs: string[]) => [...new Set(xs)];
  const sel = (id: string, label: string, values: string[], show: (x: string) => string = (x) => x) =>
    `<label for="${id}">${label}</label> <select id="${id}"><option value="">all</option>${values.map((x) => `<option value="${esc(x)}">${esc(show(x))}</option>`).join('')}</select>`;
  return `<section id="controls" class="card controls" aria-label="filters">
<fieldset class="who"><legend>Contenders shown</legend>${contenders
    .map(
      (c) =>
        `<label><input type="checkbox" name="contender" value="${esc(c)}" checked> <span class="swatch" data-label="${esc(c)}"></span>${esc(c)}</label>`,
    )
    .join('')}<button id="f-all" type="button">all</button></fieldset>
<span>${sel('f-highlight', 'Highlight', contenders)}</span>
<span>${sel('f-scenario', 'Scenario', uniq(v.tables.map((t) => t.scenario)))}</span>
<span>${sel('f-profile', 'Profile', uniq(v.tables.map((t) => t.profile)))}</span>
<span>${sel('f-driver', 'Driver', uniq(v.tables.map((t) => t.driver)).sort())}</span>
<span>${sel(
    'f-node',
    'Node',
    uniq(v.tables.map((t) => String(t.nodeMajor))).sort((a, b) => Number(a) - Number(b)),
    (x) => `Node ${x}`,
  )}</span>
<button id="f-reset" type="button">reset</button>
<span id="shown" class="note" aria-live="polite"></span>
</section>`;
}

/** A sortable header cell: a button inside the <th> (keyboard: Tab, Enter/Space). */
const th = (label: string, num = false, sorted: 'ascending' | 'none' = 'none') =>
  `<th${num ? ' class="num"' : ''} aria-sort="${sorted}"><button type="button">${esc(label)}</button></th>`;

/** The capacity table's cells of a row (capacity-text.ts column set), after rank and contender. */
function capacityCells(r: RowView): string[] {
  const k = r.capacity;
  const iv = r.rps ? (r.rps.interval ? `${intervalName(r.rps)} ${fmtBounds(r.rps)}` : intervalName(r.rps)) : '';
  const pct = r.isBaseline ? { text: '100%', iv: '' } : pctCell(r.ratio);
  return [
    `<td class="num" data-v="${r.rps?.figure ?? ''}">${esc(sustainableText(r.rps, k?.verdict ?? null))}</td>`,
    `<td class="num" data-v="${r.rps?.interval?.[0] ?? ''}">${esc(iv) || '–'}</td>`,
    `<td class="num" data-v="${r.ratio?.figure ?? ''}">${pct.text}${pct.iv ? ` <span class="sub">(${esc(pct.iv)})</span>` : ''}</td>`,
    `<td class="num" data-v="${k?.peakRps.figure ?? ''}">${k ? fmtFigure(k.peakRps) : '–'}</td>`,
    `<td class="num" data-v="${k?.knee ?? ''}">${kneeText(k?.knee ?? null)}</td>`,
    `<td class="num" data-v="${k?.p99AtCapacityMs ?? ''}">${p99CapText(k?.p99AtCapacityMs ?? null)}</td>`,
    `<td class="num" data-v="${k?.steps ?? ''}">${k ? esc(stepsText(k)) : '–'}</td>`,
  ];
}

function boardTable(t: TableView): string {
  const own = t.rows.filter((r) => !r.otherRun);
  const hasRes = own.some((r) => r.resources);
  const capHead = t.capacity
    ? [
        th('rank', true, 'ascending'),
        th('contender'),
        th(capacityHeader(t.capacity.sloP99Ms), true),
        th('interval', true),
        th(`% of ${t.baseline}`, true),
        th('closed-loop peak req/s', true),
        th(SHARE_OF_PEAK_HEADER, true),
        th('p99 at capacity ms', true),
        th('searches, steps', true),
        th('flags'),
      ].join('')
    : '';
  const head =
    capHead ||
    [
      th('rank', true, 'ascending'),
      th('contender'),
      th('requests/s', true),
      th('interval', true),
      th(`% of ${t.baseline}`, true),
      th('p50 ms', true),
      th('p99 ms', true),
      th('errors', true),
      ...(hasRes ? [th('CPU % (max)', true), th('RSS peak MiB', true)] : []),
      th('flags'),
    ].join('');
  const rows = t.rows
    .map((r) => {
      const cls = [r.failed ? 'failed' : '', r.otherRun ? 'other-run' : ''].filter(Boolean).join(' ');
      const iv = r.rps ? (r.rps.interval ? `${intervalName(r.rps)} ${fmtBounds(r.rps)}` : intervalName(r.rps)) : '';
      const pct = r.isBaseline ? { text: '100%', iv: '' } : pctCell(r.ratio);
      const res = r.resources;
      const tags = [
        ...r.flags.map((f) =>
          f === 'failed'
            ? '<span class="tag bad">failed</span>'
            : /client-bound|noisy|trial|lost|warn|limit|never/.test(f)
              ? `<span class="tag warn">${esc(f)}</span>`
              : `<span class="tag">${esc(f)}</span>`,
        ),
        r.notRanked && !r.otherRun ? `<span class="sub">${esc(r.notRanked)}</span>` : '',
        r.why
          ? `<a class="tag why" href="#${esc(r.why.anchor)}" title="${esc(r.why.text)}">${esc(r.why.text)}</a>`
          : '',
      ].join(' ');
      const lead = [
        `<td class="num" data-v="${r.rank ?? ''}">${esc(r.rankText)}</td>`,
        `<td><span class="swatch" data-label="${esc(r.label)}"></span><code title="${esc(r.displayName)} · run ${esc(r.runId)}">${esc(r.label)}</code>${r.isBaseline ? ' <span class="tag">baseline</span>' : ''}</td>`,
      ];
      if (t.capacity)
        return `<tr data-label="${esc(r.label)}"${cls ? ` class="${cls}"` : ''}>${[...lead, ...capacityCells(r), `<td>${tags}</td>`].join('')}</tr>`;
      const cells = [
        ...lead,
        `<td class="num" data-v="${r.rps?.figure ?? ''}">${r.rps ? fmtFigure(r.rps) : '–'}</td>`,
        `<td class="num" data-v="${r.rps?.interval?.[0] ?? ''}">${esc(iv) || '–'}</td>`,
        `<td class="num" data-v="${r.ratio?.figure ?? ''}">${pct.text}${pct.iv ? ` <span class="sub">(${esc(pct.iv)})</span>` : ''}</td>`,
        `<td class="num" data-v="${r.latencyMs?.p50 ?? ''}">${r.latencyMs ? fmtMs(sig(r.latencyMs.p50)) : '–'}</td>`,
        `<td class="num" data-v="${r.latencyMs?.p99 ?? ''}">${r.latencyMs ? fmtMs(sig(r.latencyMs.p99)) : '–'}</td>`,
        `<td class="num" data-v="${r.errors ?? ''}">${r.errors === null ? '–' : fmtInt(r.errors)}</td>`,
        ...(hasRes
          ? [
              `<td class="num" data-v="${res?.cpuAvgPct ?? ''}">${res ? `${res.cpuAvgPct.toFixed(0)} (${res.cpuCapPct})` : '–'}</td>`,
              `<td class="num" data-v="${res?.rssPeakMiB ?? ''}">${res ? res.rssPeakMiB.toFixed(0) : '–'}</td>`,
            ]
          : []),
        `<td>${tags}</td>`,
      ];
      return `<tr data-label="${esc(r.label)}"${cls ? ` class="${cls}"` : ''}>${cells.join('')}</tr>`;
    })
    .join('\n');
  return `<div class="scroll"><table class="board sortable" aria-label="${esc(`${t.scenario} · ${t.profile}`)}"><thead><tr>${head}</tr></thead><tbody>
${rows}
</tbody></table></div>`;
}

function groupSection(t: TableView): string {
  const own = t.rows.filter((r) => !r.otherRun);
  const shown = tableRows(t);
  const drawn = own.filter((r) => shown.includes(r) || r.failed);
  const hasRes = drawn.some((r) => r.resources);
  const hasEff = drawn.some((r) => r.efficiency !== null || (r.resources?.rpsPerCpuSecond ?? 0) > 0);
  const effTitle = drawn.some((r) => r.efficiency !== null)
    ? 'requests per server CPU-second (median of the interleaved rounds)'
    : 'requests per server CPU-second (solo windows: requests/s ÷ server CPU)';
  const hasLat = drawn.some((r) => r.latencyMs);
  const hasCurve = own.some((r) => r.capacity?.curve.length);
  const chart = (kind: string, title: string) =>
    `<div class="chart-box${kind === 'capacity' ? ' wide' : ''}"><h4>${esc(title)}</h4><div class="chart" data-chart="${kind}" data-table="${esc(t.id)}" role="img" aria-label="${esc(`${title}, ${t.scenario} · ${t.profile}`)}"></div></div>`;
  const rpsTitle = t.capacity
    ? `${capacityHeader(t.capacity.sloP99Ms)} (interval whiskers; hatched ≥ = the open-loop driver at its limit or client-bound, ✕ = failed)`
    : 'requests/s (interval whiskers; hatched ≥ = client-bound, ✕ = failed)';
  const curve =
    t.capacity && hasCurve
      ? chart(
          'capacity',
          `p99 against the offered open-loop rate, one panel per contender on shared axes: the median of its steps over all searches in 15%-wide bins of rate (● most of a bin's steps held, ○ most failed; dashed: the SLO, p99 ≤ ${fmtSlo(t.capacity.sloP99Ms)} ms)`,
        )
      : '';
  const charts =
    drawn.length || curve
      ? `<div class="charts">${drawn.length ? chart('rps', rpsTitle) : ''}${curve}${hasLat ? chart('latency', 'latency p50 ● and p99 ◆') : ''}${hasEff ? chart('efficiency', effTitle) : ''}${hasRes ? chart('rss', 'server memory') : ''}</div>`
      : '';
  return `<section class="card group${t.capacity ? ' capacity' : ''}" id="${esc(t.id)}" data-scenario="${esc(t.scenario)}" data-profile="${esc(t.profile)}" data-driver="${esc(t.driver)}" data-node="${t.nodeMajor}">
<h3>${esc(t.scenario)} · ${esc(t.profile)} · ${esc(t.driver)} · Node ${t.nodeMajor}</h3>
<p class="sub">${esc(t.scenarioTitle)} · run <code>${esc(t.runId)}</code> · ${esc(t.machine)} · baseline <code>${esc(t.baseline)}</code></p>
${t.summary ? `<p class="summary">${md(t.summary)}</p>` : ''}
${t.resolution ? `<p class="resolution">${md(t.resolution)}</p>` : ''}
${t.notes.length ? `<div class="notes"><strong>Measurement notes</strong><ul>${t.notes.map((n) => `<li>${md(n)}</li>`).join('')}</ul></div>` : ''}
${t.variants.length ? `<div class="notes"><strong>Variant overhead</strong><ul>${t.variants.map((n) => `<li>${md(n)}</li>`).join('')}</ul></div>` : ''}
${charts}
${boardTable(t)}
</section>`;
}

function issuesSection(v: ReportView): string {
  const sevs = ['critical', 'major', 'minor', 'info'];
  const count = (s: string) => v.findings.filter((f) => f.severity === s).length;
  const leak = v.leakCheck ? `<p class="note" id="leak-check">${md(v.leakCheck)}</p>` : '';
  if (!v.findings.length)
    return `<section id="findings" class="card"><h2>Findings</h2><p>None: no contender problem (failures, errors, wrong bodies, collapses${v.leakCheck ? '' : ', leaks'}) was found.</p>${leak}</section>`;
  return `<section id="findings" class="card"><h2>Findings</h2>
<p class="note">Contender problems only, worst first; conditions of the measurement are in each table’s measurement notes. The counts follow the filters.</p>
<div class="chips">${sevs
    .filter((s) => count(s) > 0)
    .map((s) => `<span class="sev sev-${s}" data-severity="${s}">${count(s)} ${s}</span>`)
    .join('')}</div>
<div class="scroll"><table class="issues sortable"><thead><tr>${th('severity')}${th('contender')}${th('scenario')}${th('profile')}${th('finding')}</tr></thead><tbody>
${v.findings
  .map((f) => {
    const tr = `<tr class="finding" data-label="${esc(f.label)}" data-scenario="${esc(f.scenario === '(all)' ? '' : f.scenario)}" data-severity="${esc(f.severity)}">`;
    const severity = `<td data-v="${sevs.indexOf(f.severity)}"><span class="sev sev-${esc(f.severity)}">${esc(f.severity)}</span></td>`;
    const where = `<td><code>${esc(f.label)}</code></td><td>${esc(f.scenario)}</td><td>${esc(f.profile)}</td>`;
    return `${tr}${severity}${where}<td><strong>${esc(f.title)}</strong>. ${md(f.evidence)}</td></tr>`;
  })
  .join('\n')}
</tbody></table></div><p class="note hidden" id="findings-filtered">No findings for the selected contenders and scenario.</p>${leak}</section>`;
}

function claimsSection(v: ReportView): string {
  const rows = v.claims
    .map((c) => {
      const claim = `<td>${esc(c.claim)}<div class="sub"><code>${esc(c.a)}</code> vs <code>${esc(c.b)}</code> · ${esc(c.scenario)}</div></td>`;
      const source = `<td>${esc(c.source)}</td><td>${esc(c.sourceFigure)}</td><td>${esc(c.range)}</td><td>${esc(c.loadShape)}</td>`;
      const ours = `<td class="num">${esc(c.ours)}${c.headroom ? `<div class="sub">${md(c.headroom)}</div>` : ''}</td>`;
      const kind = esc(c.verdict.replace(/ \(provisional.*$/, '').replace(/[^a-z]+/g, '-'));
      const verdict = `<span class="verdict v-${kind}${c.provisional ? ' provisional' : ''}">${esc(c.verdict)}</span>`;
      const note = `<div class="sub">${md(c.note)}${c.rule ? ` Rule: ${md(c.rule)}` : ''}</div>`;
      return `<tr data-label="${esc(c.a)}">${claim}${source}${ours}<td>${verdict}${note}</td></tr>`;
    })
    .join('\n');
  return `<section id="claims" class="card"><h2>Claims of the source reports</h2>
<p class="note">${md(v.claimsRule)} Sources: <code>docs/sources.md</code>.</p>
${v.claims.length ? `<div class="scroll"><table class="claims sortable"><thead><tr>${th('claim')}${th('source')}${th('source’s figure')}${th('decision range')}${th('load shape')}${th('ours', true)}${th('verdict')}</tr></thead><tbody>\n${rows}\n</tbody></table></div>` : '<p>No claims evaluated.</p>'}
</section>`;
}

function nodeMatrixSection(v: ReportView): string {
  const body = v.nodeMatrix.length
    ? v.nodeMatrix
        .map((m) => {
          const note = [
            `Each major as a % of the same contender on Node ${m.reference} in the same run`,
            '(its majors interleaved round by round; 95% CI and verdict from one model per scenario),',
            `Node ${m.reference} with its requests/s; a cell that did not run says why.`,
          ].join(' ');
          const majors = m.majors.map((x) =>
            th(x === m.reference ? `Node ${x} (reference)` : `Node ${x} (% of Node ${m.reference})`, true),
          );
          const head = `<thead><tr>${th('contender')}${th('scenario')}${majors.join('')}</tr></thead>`;
          const rows = m.rows.map((r) => {
            const cols = r.cols.map(
              (c) =>
                `<td class="num" data-v="${esc(((c ?? '').split(/[ %]/)[0] ?? '').replace(/,/g, ''))}">${esc(c ?? '–')}</td>`,
            );
            return `<tr data-label="${esc(r.label)}" data-scenario="${esc(r.scenario)}"><td><code>${esc(r.label)}</code></td><td>${esc(r.scenario)}</td>${cols.join('')}</tr>`;
          });
          const title = `<h3>${esc(m.profile)} · ${esc(m.driver)} · run <code>${esc(m.runId)}</code></h3>`;
          return `${title}<p class="note">${note}</p><div class="scroll"><table class="nodes sortable">${head}<tbody>${rows.join('')}</tbody></table></div>`;
        })
        .join('\n')
    : '<p class="note">Only one Node.js major was measured: run <code>npx just bench-all --node 22,24</code> for the matrix.</p>';
  return `<section id="node-matrix" class="card"><h2>Node.js version matrix</h2>${body}</section>`;
}

function driversSection(v: ReportView): string {
  const note = [
    'Each driver’s tables are ranked within themselves; per scenario,',
    'Spearman’s ρ between the orders of the contenders both drivers measured',
    '(each in its own run, so only the orders are compared, never the figures), and the contenders that move most.',
  ].join(' ');
  const items = v.driverAgreement.map(
    (d) =>
      `<li data-scenario="${esc(d.scenario)}">${md(d.text).replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')}</li>`,
  );
  const body = v.driverAgreement.length
    ? `<p class="note">${note}</p><ul class="rankings">${items.join('')}</ul>`
    : '<p class="note">No scenario was measured by two load drivers (closed loop): run <code>npx just bench-all --profile quick-k6</code> or an autocannon profile for the comparison.</p>';
  return `<section id="drivers" class="card"><h2>Do the drivers agree?</h2>${body}</section>`;
}

function compareSection(v: ReportView): string {
  const runs = [...new Set(v.ratios.map((r) => r.runId))].sort();
  const opts = (pick: string | undefined) =>
    runs.map((id) => `<option value="${esc(id)}"${id === pick ? ' selected' : ''}>${esc(id)}</option>`).join('');
  const a = runs[runs.length - 2] ?? runs[0];
  const b = runs[runs.length - 1];
  return `<section id="compare" class="card"><h2>Compare two runs</h2>
<p class="note">Per cell present in both runs: its ratio to its own run’s baseline in each run, and the change of that ratio (drift of the host cancels). For a verdict with an interval, run <code>npx just compare A B</code>.</p>
${
  runs.length < 2
    ? '<p class="note" id="cmp-none">This page holds one run only; compare views need two (render the leaderboard without <code>--run</code>).</p>'
    : ''
}
<div class="controls"><label for="cmp-a">run A</label> <select id="cmp-a">${opts(a)}</select>
<label for="cmp-b">run B</label> <select id="cmp-b">${opts(b)}</select> <span id="cmp-status" class="note" aria-live="polite"></span></div>
<div class="scroll"><table id="compare-table" class="sortable"><thead><tr>${th('contender')}${th('scenario')}${th('profile · driver · Node')}${th('A: % of baseline', true)}${th('B: % of baseline', true)}${th('change B vs A', true)}</tr></thead><tbody></tbody></table></div>
</section>`;
}

function runsSection(v: ReportView): string {
  return `<section id="method" class="card"><h2>Runs and method</h2>
<p><strong>Machine:</strong> ${esc(v.machine)}</p>
${v.warnings.map((w) => `<p class="fallback">${md(w)}</p>`).join('')}
<div class="scroll"><table class="runs sortable"><thead><tr>${th('run')}${th('started')}${th('profile')}${th('Node')}${th('commit')}${th('machine')}${th('state')}${th('cells', true)}</tr></thead><tbody>${v.runs
    .map(
      (r) =>
        `<tr><td><code>${esc(r.runId)}</code></td><td>${esc(r.startedAt.replace('T', ' ').slice(0, 19))} UTC</td><td>${esc(r.profile)}</td><td>${esc(r.node)}</td><td><code>${esc(r.commit)}</code></td><td>${esc(r.machine)}</td><td>${esc(r.state)}</td><td class="num">${r.cells}</td></tr>`,
    )
    .join('')}</tbody></table></div>
<ul>${[...v.method, ...v.fidelity.map(fidelityLine)].map((m) => `<li>${md(m)}</li>`).join('')}</ul>
</section>`;
}

function toc(v: ReportView): string {
  const scen = [...new Map(v.tables.map((t) => [t.scenario, t.id])).entries()];
  const links = [
    '<a href="#overview">Overview</a><a href="#controls">Filters</a>',
    ...scen.map(([s, id]) => `<a href="#${esc(id)}">${esc(s)}</a>`),
    '<a href="#findings">Findings</a>',
    v.why ? '<a href="#why">Why</a>' : '',
    v.footprint?.length ? '<a href="#footprint">Footprint</a>' : '',
    '<a href="#claims">Claims</a><a href="#node-matrix">Node matrix</a><a href="#drivers">Drivers</a>',
    '<a href="#compare">Compare</a><a href="#method">Method</a>',
  ];
  return `<nav class="toc" aria-label="contents">${links.join('')}</nav>`;
}

/**
 * Fills the template's slots: `<!-- slot:NAME -->` comments, and empty `<style|script …
 * data-slot="NAME"></…>` elements whose content becomes the value (the attribute is dropped).
 * Plain string splicing, so `$` in a value is never a replacement pattern. Throws when a slot is missing.
 */
function fill(template: string, values: Record<string, string>): string {
  let out = template;
  for (const [k, v] of Object.entries(values)) {
    const comment = `<!-- slot:${k} -->`;
    const el = new RegExp(`<(style|script)([^>]*?) data-slot="${k}"></(style|script)>`).exec(out);
    if (out.includes(comment)) out = out.split(comment).join(v);
    else if (el)
      out = `${out.slice(0, el.index)}<${el[1]}${el[2]}>${v}</${el[1]}>${out.slice(el.index + el[0].length)}`;
    else throw new Error(`html/page.html has no slot '${k}'`);
  }
  return out;
}

/**
 * The whole page from a view. `echarts` is the library source (tests may pass a stub); `flameLibs`
 * the sources of d3 and d3-flame-graph (default: from node_modules, inlined only when the Why
 * section has a flame graph).
 */
export function renderHtmlView(v: ReportView, echarts = echartsSource(), flameLibs?: string[]): string {
  const read = (f: string) => fs.readFileSync(path.join(ASSETS, f), 'utf8');
  const contenders = [...new Set([...v.matrix.contenders, ...v.tables.flatMap((t) => t.rows.map((r) => r.label))])];
  const subtitle = `Generated ${esc(v.generatedAt.replace('T', ' ').slice(0, 16))} UTC by <code>just leaderboard</code> from ${plural(v.runs.length, 'run')} in <code>results/runs/</code>. Do not edit by hand.`;
  const body = !v.runs.length
    ? '<section class="card" id="overview"><h2>No results yet</h2><p>Run <code>npx just bench-all</code>, then <code>npx just leaderboard</code>.</p></section>'
    : [
        overviewSection(v),
        controls(v, contenders),
        `<div id="details">${v.tables.map(groupSection).join('\n')}<section id="empty" class="card hidden"><p>No table matches these filters.</p></section></div>`,
        issuesSection(v),
        whySectionHtml(v.why),
        footprintSectionHtml(v.footprint),
        claimsSection(v),
        nodeMatrixSection(v),
        driversSection(v),
        compareSection(v),
        runsSection(v),
      ].join('\n');
  return fill(read('page.html'), {
    subtitle,
    toc: v.runs.length ? toc(v) : '',
    css: read('page.css'),
    body,
    data: scriptJson(pageData(v, contenders)),
    echarts: scriptJs(echarts),
    script: scriptJs(`${read('page.js')}\n${FOOTPRINT_SCRIPT}`),
    flames: v.runs.length ? flameScripts(v.why, flameLibs) : '',
  });
}

export const htmlExporter: Exporter = {
  format: 'html',
  description: 'leaderboard.html: one self-contained page with charts, filters, sorting and a compare view',
  extension: 'html',
  render(snapshot: ReportSnapshot, options: ExportOptions = {}): string {
    return renderHtmlView(buildView(snapshot, options));
  },
};
