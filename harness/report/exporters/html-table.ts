/**
 * One table of the HTML report as a section: its heading and sentences (summary, resolution,
 * measurement notes, variant overhead), the chart boxes the browser script fills (requests/s or
 * the ranking measure with interval whiskers, latency, requests per server CPU-second, RSS, a
 * capacity table's latency-versus-rate panels) and the sortable table, a capacity table with the
 * capacity column set (capacity-text.ts).
 */
import { fmtBounds, fmtFigure, fmtInt, fmtMs, intervalName, sig } from '../../core/format.ts';
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
import { figureHeader, HEADLINE_MEASURE, LATENCY_AT_SATURATION, rankMeasure, SOLO_RPS } from '../measure.ts';
import type { RowView, TableView } from '../view.ts';
import { pctCell } from './html-overview.ts';
import { esc, md, th } from './html-text.ts';

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

/** The sortable table of one table: rank, contender, figure, interval, % of baseline, latency, errors, resources, flags (a capacity table: its own column set). */
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

/** One table's section: its heading, summary, resolution and notes, its charts, then its sortable table. */
export function groupSection(t: TableView): string {
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
