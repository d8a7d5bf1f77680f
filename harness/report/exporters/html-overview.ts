/**
 * The HTML report's overview and filters: the answer first (view/answer-view.ts), the heatmaps of
 * "% of baseline" per baseline family (colour `heatColor`), then folded: how sure with the rank rule
 * and the winners table, the capacity matrix and a one-run report's reference run; `controls` are
 * the filters that follow it.
 */
import type { Estimate } from '../../analysis/stats.ts';
import { fmtBounds, fmtFigure, intervalName } from '../../core/format.ts';
import { fmtSlo, sustainableText } from '../capacity-text.ts';
import type { ReferenceRunView, ReportView } from '../view.ts';
import { pairText } from '../reference-run.ts';
import { esc, md } from './html-text.ts';

/** Heatmap colour of a ratio: orange below 1, green above, white at 1 (log scale, ±2×). */
export function heatColor(ratio: number): { bg: string; fg: string } {
  const x = Math.max(-1, Math.min(1, Math.log2(Math.max(ratio, 1e-6))));
  const mix = (a: number[], t: number) => a.map((c) => Math.round(255 + (c - 255) * t));
  const rgb = x < 0 ? mix([232, 89, 12], -x * 0.85) : mix([43, 138, 62], x * 0.85);
  return { bg: `rgb(${rgb.join(',')})`, fg: Math.abs(x) > 0.6 ? '#fff' : '#1d2430' };
}

export const pctCell = (e: Estimate | null): { text: string; iv: string } =>
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

/** The winners by rank (rank 1 of each scenario's table), each name marked for the contender filter. */
function winnersTable(v: ReportView): string {
  const shape = (w: ReportView['winners'][number]) => `${w.profile} · ${w.driver} · Node ${w.nodeMajor}`;
  const oneShape = new Set(v.winners.map(shape)).size === 1;
  if (!v.winners.length) return '<p class="note">No ranked table yet (a cell needs 5 trials to be ranked).</p>';
  const rows = v.winners.map((w) => {
    const scenario = `<a href="#${esc(w.tableId)}" title="${esc(shape(w))}">${esc(w.scenario)}</a>`;
    const sub = oneShape ? '' : `<div class="sub">${esc(shape(w))}</div>`;
    const who = w.winners.map(
      (x) =>
        `<span class="who-name" data-label="${esc(x)}"><span class="swatch" data-label="${esc(x)}"></span><code>${esc(x)}</code></span>`,
    );
    const tied = w.winners.length > 1 ? ' <span class="tag">tied</span>' : '';
    const margin = w.margin ? `<div class="sub">${md(w.margin)}</div>` : '';
    return `<tr><td>${scenario}${sub}</td><td>${who.join(' ')}${tied}${margin}</td></tr>`;
  });
  return `${oneShape && v.winners[0] ? `<p class="sub">${esc(shape(v.winners[0]))}</p>` : ''}<table class="winners"><thead><tr><th>scenario</th><th>rank 1 (the baseline included)</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** A folded block: its summary always shown, its content on a click (or a link into it: page.js opens it). */
const fold = (id: string, summary: string, body: string): string =>
  `<details class="fold" id="${esc(id)}"><summary>${summary}</summary>\n${body}\n</details>`;

/**
 * The answer first (view/answer-view.ts): one line per scenario, the confidence line (first on a
 * phone), the reference line and where the details are; then the heatmaps; then, folded, how sure
 * with the rank rule and the winners table, the capacity matrix and the reference run's matrices.
 */
export function overviewSection(v: ReportView): string {
  const a = v.answer;
  const lines = a.scenarios.map(
    (s) =>
      `<li data-scenario="${esc(s.scenario)}"><a href="#${esc(s.tableId)}"><strong>${esc(s.scenario)}</strong></a> <span class="sub">(${esc(s.title)})</span>: ${esc(s.text)}</li>`,
  );
  const head = `${a.profile ? `${esc(a.profile)} profile · ` : ''}ranked by ${esc(a.measure)} · ≈ not resolved; N× slower than the first`;
  return `<section id="overview" class="card" aria-labelledby="h-overview">
<h2 id="h-overview">The answer</h2>
<div class="answer-box">
<p class="sub answer-head">${head}</p>
${lines.length ? `<ul class="answer">${lines.join('\n')}</ul>` : '<p class="note">No ranked table yet (a cell needs 5 trials to be ranked).</p>'}
<p class="confidence"><strong>Confidence:</strong> ${md(a.confidence)}</p>
${a.reference ? `<p class="reference-line">${md(a.reference)}</p>` : ''}
${v.driverFallback ? `<p class="fallback"><strong>Driver:</strong> ${md(v.driverFallback)}</p>` : ''}
<p class="details-link">Details: <a href="#how-sure">how sure</a> · <a href="#details">every table</a> · <a href="#method">the report’s Method</a></p>
</div>
<div class="overview-grid">
<div>${v.matrix.families.map((f) => familyHeatmap(v, f)).join('\n')}${v.matrix.joinedNote ? `<p class="note joined">${md(v.matrix.joinedNote)}</p>` : ''}
<div class="legend-scale"><span>% of each scenario’s baseline (${esc(a.measure)}), interval below the figure; bold frame = rank 1; ≥ client-bound (lower bound); † not ranked (few trials); ‡ from another run, not ranked; ~ after a scenario: its table has noisy rows (its notes name them)</span></div></div>
</div>
${fold('how-sure', 'How sure, the rank rule and rank 1 of each table', `<p class="certainty"><strong>How sure:</strong> ${md(v.certainty)} <span class="sub">${esc(v.rankRule)}</span></p>\n${winnersTable(v)}`)}
${v.capacity ? fold('capacity-fold', 'Sustainable requests/s at p99 ≤ SLO (open loop)', capacityOverview(v.capacity)) : ''}
${v.referenceRun ? fold('reference-fold', 'The reference run beside this one', referenceHtml(v.referenceRun)) : ''}
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

/** The filters: contenders shown, highlight, scenario, profile, driver, Node. */
export function controls(v: ReportView, contenders: string[]): string {
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
