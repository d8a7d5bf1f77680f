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
 * Modules: the page data (html-page-data.ts), a table's section (html-table.ts), the overview and
 * filters (html-overview.ts), the sections after the tables (html-sections.ts); this one inlines
 * the assets and fills the template.
 *
 * Why: after "Findings", the "Why (CPU profiles)" section of `just why` runs with a
 * flame graph per profiled cell (exporters/why-html.ts); a row with a why finding links to it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { plural } from '../../core/format.ts';
import type { ReportSnapshot } from '../snapshot.ts';
import { buildView } from '../view-build.ts';
import type { ReportView } from '../view.ts';
import type { Exporter, ExportOptions } from './exporter-types.ts';
import { flameScripts, whySectionHtml } from './why-html.ts';
import { esc } from './html-text.ts';
import { controls, overviewSection } from './html-overview.ts';
import { pageData, scriptJson } from './html-page-data.ts';
import {
  claimsSection,
  compareSection,
  driversSection,
  fold,
  issuesSection,
  nodeMatrixSection,
  runsSection,
  toc,
  twoRuns,
} from './html-sections.ts';
import { groupSection } from './html-table.ts';

export { esc } from './html-text.ts';
export { heatColor } from './html-overview.ts';
import { FOOTPRINT_SCRIPT, footprintSectionHtml } from './footprint-html.ts';

const ASSETS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'html');

/** The chart library inlined into the page (pinned in package.json). */
export function echartsSource(): string {
  const main = createRequire(import.meta.url).resolve('echarts'); // …/echarts/dist/echarts.js
  return fs.readFileSync(path.join(path.dirname(main), 'echarts.min.js'), 'utf8');
}

/** Inline JavaScript that cannot close its <script> element early. */
function scriptJs(src: string): string {
  return src.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
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
