/**
 * The HTML report's "Footprint" section (report/footprint-view.ts): per run its table (plain
 * HTML, sortable like the others) and a chart of cold start against requests/s, each point with
 * its intervals on both axes (whiskers), drawn by the page's ECharts with FOOTPRINT_SCRIPT (which
 * html.ts appends to the page script); each chart's points are in its data-points attribute.
 */
import { FOOTPRINT_COLUMNS, type FootprintView } from '../footprint-view.ts';

function esc(s: unknown): string {
  return String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The chart's points: label, requests/s and cold start ms with their bounds (rows with both figures). */
function points(v: FootprintView) {
  return v.rows.flatMap((r) =>
    r.rps && r.coldStartMs
      ? [
          {
            label: r.label,
            x: r.rps.figure,
            xl: r.rps.interval?.[0] ?? r.rps.figure,
            xh: r.rps.interval?.[1] ?? r.rps.figure,
            y: r.coldStartMs.figure,
            yl: r.coldStartMs.interval?.[0] ?? r.coldStartMs.figure,
            yh: r.coldStartMs.interval?.[1] ?? r.coldStartMs.figure,
          },
        ]
      : [],
  );
}

/**
 * Draws every `.fp-chart` from its data-points: a scatter with whiskers on both axes (custom
 * series). html.ts appends it to the page script (after ECharts); it waits for DOMContentLoaded.
 */
export const FOOTPRINT_SCRIPT = `document.addEventListener('DOMContentLoaded', function () {
  if (!window.echarts) return;
  document.querySelectorAll('.fp-chart').forEach(function (el) {
    var pts = JSON.parse(el.getAttribute('data-points') || '[]');
    if (!pts.length) return;
    var chart = echarts.init(el, null, { renderer: 'svg' });
    chart.setOption({
      grid: { left: 70, right: 20, top: 20, bottom: 50 },
      tooltip: { formatter: function (p) { var d = pts[p.dataIndex]; return d.label + '<br>' + Math.round(d.x) + ' requests/s (' + Math.round(d.xl) + '–' + Math.round(d.xh) + ')<br>cold start ' + Math.round(d.y) + ' ms (' + Math.round(d.yl) + '–' + Math.round(d.yh) + ')'; } },
      xAxis: { type: 'value', name: 'requests/s (' + (el.getAttribute('data-scenario') || '') + ')', nameLocation: 'middle', nameGap: 30, scale: true },
      yAxis: { type: 'value', name: 'cold start, ms', nameLocation: 'middle', nameGap: 50, scale: true },
      series: [{
        type: 'custom',
        data: pts.map(function (d) { return [d.x, d.y, d.xl, d.xh, d.yl, d.yh]; }),
        renderItem: function (params, api) {
          var c = api.coord([api.value(0), api.value(1)]);
          var xl = api.coord([api.value(2), api.value(1)]), xh = api.coord([api.value(3), api.value(1)]);
          var yl = api.coord([api.value(0), api.value(4)]), yh = api.coord([api.value(0), api.value(5)]);
          var st = { stroke: '#4c6ef5', lineWidth: 1.5 };
          return { type: 'group', children: [
            { type: 'line', shape: { x1: xl[0], y1: xl[1], x2: xh[0], y2: xh[1] }, style: st },
            { type: 'line', shape: { x1: yl[0], y1: yl[1], x2: yh[0], y2: yh[1] }, style: st },
            { type: 'circle', shape: { cx: c[0], cy: c[1], r: 4 }, style: { fill: '#4c6ef5' } },
            { type: 'text', style: { text: pts[params.dataIndex].label, x: c[0] + 6, y: c[1] - 12, fontSize: 11, fill: '#333' } }
          ] };
        }
      }]
    });
  });
});`;

/** One run's table and chart. */
function runBlock(v: FootprintView): string {
  const head = FOOTPRINT_COLUMNS.map((c, i) => `<th${i ? ' class="num"' : ''}>${esc(c.header)}</th>`).join('');
  const body = v.rows
    .map(
      (r) =>
        `<tr${r.floor ? ' class="baseline"' : ''}>${FOOTPRINT_COLUMNS.map((c, i) => `<td${i ? ' class="num"' : ''}>${i ? esc(c.text(r)) : `<code>${esc(c.text(r))}</code>`}</td>`).join('')}</tr>`,
    )
    .join('');
  const pts = points(v);
  const title = `<h4>Cold start against requests/s (${esc(v.scenario)}), 95% intervals on both axes</h4>`;
  const chart = `<div class="chart fp-chart" role="img" aria-label="cold start against requests/s" data-scenario="${esc(v.scenario)}" data-points="${esc(JSON.stringify(pts))}"></div>`;
  return `<h3>Run <code>${esc(v.runId)}</code></h3>
<p class="note">${esc(v.note)}</p>
<div class="scroll"><table class="sortable footprint"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>
${pts.length ? `<div class="chart-box wide">${title}${chart}</div>` : ''}`;
}

/** The section, or '' without a Footprint table. */
export function footprintSectionHtml(views: readonly FootprintView[] | undefined): string {
  if (!views?.length) return '';
  return `<section id="footprint" class="card"><h2>Footprint</h2>
${views.map(runBlock).join('\n')}
</section>`;
}
