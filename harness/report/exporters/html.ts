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
import { figureHeader, HEADLINE_MEASURE, LATENCY_AT_SATURATION, rankMeasure, SOLO_RPS } from '../measure.ts';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { medianCurve } from '../../analysis/capacity.ts';
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
import type { ReportView, RowView, TableView } from '../view.ts';
import type { Exporter, ExportOptions } from './exporter-types.ts';
import { flameScripts, whySectionHtml } from './why-html.ts';
import { esc, md, th } from './html-text.ts';
import { controls, overviewSection, pctCell } from './html-overview.ts';

export { esc } from './html-text.ts';
export { heatColor } from './html-overview.ts';
import { FOOTPRINT_SCRIPT, footprintSectionHtml } from './footprint-html.ts';

const ASSETS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'html');

/** The chart library inlined into the page (pinned in package.json). */
export function echartsSource(): string {
  const main = createRequire(import.meta.url).resolve('echarts'); // …/echarts/dist/echarts.js
  return fs.readFileSync(path.join(path.dirname(main), 'echarts.min.js'), 'utf8');
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
  /** % of the table's baseline in the row's rank measure (100 for the baseline), with its interval; null without a ratio. */
  pct: number | null;
  pctLo: number | null;
  pctHi: number | null;
  pctInterval: string;
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
    pct: r.isBaseline ? 100 : r.ratio ? 100 * r.ratio.figure : null,
    pctLo: !r.isBaseline && r.ratio?.interval ? 100 * r.ratio.interval[0] : null,
    pctHi: !r.isBaseline && r.ratio?.interval ? 100 * r.ratio.interval[1] : null,
    pctInterval: r.ratio && !r.isBaseline ? intervalName(r.ratio) : '',
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
      th(figureHeader(own), true),
      th('interval', true),
      th(`% of ${t.baseline} (${rankMeasure(own[0] ?? { paired: 0, capacity: null })})`, true),
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
        `<td class="num" data-v="${r.rps?.figure ?? ''}">${r.rps ? fmtFigure(r.rps) : '–'}${r.rpsMark ? ` ${esc(r.rpsMark)}` : ''}</td>`,
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
  // With interleaved rounds the ranking measure is charted first, with its interval; solo requests/s apart.
  const paired = !t.capacity && drawn.some((r) => r.paired > 0);
  const measure = paired
    ? chart(
        'measure',
        `% of ${t.baseline} in ${HEADLINE_MEASURE}, the ranking measure (95% CI whiskers from the table model)`,
      )
    : '';
  const charts =
    drawn.length || curve
      ? `<div class="charts">${measure}${drawn.length ? chart('rps', paired ? `${SOLO_RPS} (interval whiskers; hatched ≥ = client-bound, ✕ = failed)` : rpsTitle) : ''}${curve}${hasLat ? chart('latency', `${LATENCY_AT_SATURATION}: p50 ● and p99 ◆`) : ''}${hasEff && !paired ? chart('efficiency', effTitle) : ''}${hasRes ? chart('rss', 'server memory') : ''}</div>`
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

/** Whether the page holds two runs or more with ratios: the compare view needs two. */
const twoRuns = (v: ReportView): boolean => new Set(v.ratios.map((r) => r.runId)).size >= 2;

/** A folded block of the page (<details>): its summary shown, its content on a click or a link into it (page.js opens it). */
const fold = (id: string, summary: string, body: string): string =>
  `<details class="fold page-fold" id="${esc(id)}"><summary>${md(summary)}</summary>\n${body}\n</details>`;

function compareSection(v: ReportView): string {
  const runs = [...new Set(v.ratios.map((r) => r.runId))].sort();
  const opts = (pick: string | undefined) =>
    runs.map((id) => `<option value="${esc(id)}"${id === pick ? ' selected' : ''}>${esc(id)}</option>`).join('');
  const a = runs[runs.length - 2] ?? runs[0];
  const b = runs[runs.length - 1];
  return `<section id="compare" class="card"><h2>Compare two runs</h2>
<p class="note">Per cell present in both runs: its ratio to its own run’s baseline in each run, and the change of that ratio (drift of the host cancels). For a verdict with an interval, run <code>npx just compare A B</code>.</p>
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
    twoRuns(v) ? '<a href="#compare">Compare</a>' : '',
    '<a href="#method">Method</a>',
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
        fold(
          'details-fold',
          `Every table (${v.tables.length}): rows, intervals, charts, measurement notes`,
          `<div id="details">${v.tables.map(groupSection).join('\n')}<section id="empty" class="card hidden"><p>No table matches these filters.</p></section></div>`,
        ),
        fold('findings-fold', `Findings (${v.findings.length})`, issuesSection(v)),
        v.why ? fold('why-fold', 'Why: CPU profiles (`just why`)', whySectionHtml(v.why)) : '',
        v.footprint?.length ? fold('footprint-fold', 'Footprint', footprintSectionHtml(v.footprint)) : '',
        fold('claims-fold', `Source claims (${v.claims.length})`, claimsSection(v)),
        v.nodeMatrix.length ? fold('node-fold', 'Node.js version matrix', nodeMatrixSection(v)) : nodeMatrixSection(v),
        v.driverAgreement.length ? fold('drivers-fold', 'Do the drivers agree?', driversSection(v)) : driversSection(v),
        twoRuns(v) ? fold('compare-fold', 'Compare two runs', compareSection(v)) : '',
        fold('method-fold', 'Runs and method: how sure, the rank rule, the arithmetic', runsSection(v)),
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
