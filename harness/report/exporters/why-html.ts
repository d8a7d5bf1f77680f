/**
 * The HTML report's "Why (CPU profiles)" section (`just why`), from the
 * view's `why` (report/why-view.ts): per profiled cell its CPU per request and top packages, the
 * differences from the reference by package (µs of CPU per request, adding up with the rest), and
 * its flame graph, drawn in the browser by d3-flame-graph (Apache-2.0, on d3 v7, ISC; both pinned
 * in package.json and inlined with html/flame.js, so the page still opens offline from file://).
 * The libraries and the flame data are inlined only when there is a flame graph to draw. A cell
 * whose flame file is missing or truncated shows the reason in place of the graph.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { WhyCellView, WhyView } from '../view.ts';
import { pct, sgn, us } from '../why-text.ts';

const ASSETS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'html');

/** HTML-escapes text (element content and attribute values). */
function esc(s: unknown): string {
  return String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Inline JavaScript that cannot close its <script> element early. */
function scriptJs(src: string): string {
  return src.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** JSON safe inside <script>: no `<` at all. */
function scriptJson(data: unknown): string {
  return JSON.stringify(data)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The minified sources of d3 (global `d3`) and d3-flame-graph (global `flamegraph`), from node_modules. */
export function flameLibSources(): string[] {
  const req = createRequire(import.meta.url);
  const d3File = path.join(path.dirname(req.resolve('d3')), 'd3.min.js'); // main: dist/d3.mjs
  const fg = path.join(path.dirname(req.resolve('d3-flame-graph')), 'd3-flamegraph.umd.min.js'); // main: dist/…umd.js
  return [fs.readFileSync(d3File, 'utf8'), fs.readFileSync(fg, 'utf8')];
}

/** The flame graph box of a cell whose profile folded into a tree (`f`: its flame, ok). */
function flameBox(c: WhyCellView, f: Extract<WhyCellView['flame'], { ok: true }>): string {
  const ms = esc(Math.round(f.totalUs / 1000).toLocaleString('en-US'));
  const small = esc(+(f.minShare * 100).toFixed(3));
  const summary = `flame graph: the measured window’s busy time, ${ms} ms of samples (frames under ${small}% folded into <code>[(small)]</code>); click a frame to zoom`;
  const tools = [
    `<input type="search" class="flame-search" placeholder="highlight frames (regex)" aria-label="highlight frames of ${esc(c.label)}">`,
    '<button type="button" class="flame-reset">reset zoom</button>',
    '<span class="flame-details sub" aria-live="polite"></span>',
  ].join(' ');
  return `<details class="flame-box" data-flame="${esc(c.anchor)}"><summary>${summary}</summary>
<div class="flame-tools">${tools}</div>
<div class="flame" role="img" aria-label="${esc(`flame graph of ${c.label} on ${c.scenario}`)}"></div></details>`;
}

function cellBlock(c: WhyCellView): string {
  const top = c.top.map((b) => `<code>${esc(b.bucket)}</code> ${esc(us(b.ns))} (${esc(pct(b.share))})`).join(', ');
  const graph = c.flame.ok ? flameBox(c, c.flame) : `<p class="note flame-missing">${esc(c.flame.reason)}</p>`;
  return `<div class="why-cell" id="${esc(c.anchor)}" data-label="${esc(c.label)}" data-scenario="${esc(c.scenario)}">
<h4><code>${esc(c.label)}</code>${c.isBaseline ? ' <span class="tag">baseline</span>' : ''} · ${esc(c.scenario)}: ${esc(us(c.totalNs))} µs CPU/request</h4>
<p class="sub">why run <code>${esc(c.runId)}</code> · profile ${esc(c.profile)} · V8 sampling every ${esc(c.samplingIntervalUs)} µs${c.requestsPerSec === null ? '' : ` · ${esc(Math.round(c.requestsPerSec).toLocaleString('en-US'))} requests/s under the profiler`}. Top: ${top}</p>
${graph}
</div>`;
}

function diffTable(d: WhyView['diffs'][number]): string {
  const rows = d.parts
    .map(
      (p) =>
        `<tr><td><code>${esc(p.bucket)}</code></td><td class="num">${esc(us(p.aNs))}</td><td class="num">${esc(us(p.bNs))}</td><td class="num">${esc(sgn(p.diffNs))}</td></tr>`,
    )
    .join('');
  const who = `<a href="#${esc(d.anchor)}"><code>${esc(d.label)}</code></a> vs <code>${esc(d.reference)}</code> on ${esc(d.scenario)}`;
  const totals = `(${esc(us(d.aTotalNs))} vs ${esc(us(d.bTotalNs))}; why run <code>${esc(d.runId)}</code>)`;
  const head =
    '<thead><tr><th>bucket</th><th class="num">A µs</th><th class="num">B µs</th><th class="num">A − B</th></tr></thead>';
  const rest = `<tr><td>the other buckets and rounding</td><td></td><td></td><td class="num">${esc(sgn(d.restNs))}</td></tr>`;
  const sum = `<tr><th>= difference</th><th class="num">${esc(us(d.aTotalNs))}</th><th class="num">${esc(us(d.bTotalNs))}</th><th class="num">${esc(sgn(d.diffNs))}</th></tr>`;
  return `<div class="why-diff" data-label="${esc(d.label)}" data-scenario="${esc(d.scenario)}"><h4>${who}: ${esc(sgn(d.diffNs))} µs CPU/request ${totals}</h4>
<div class="scroll"><table class="why-diff-table">${head}<tbody>${rows}${rest}${sum}</tbody></table></div></div>`;
}

/** The section ('' without why data). */
export function whySectionHtml(w: WhyView | null | undefined): string {
  if (!w) return '';
  const note = [
    'From <code>just why</code> runs: one window per cell under V8’s sampling profiler (<code>results/why/</code>), never ranked.',
    'CPU per request is the server’s CPU from /proc over the window ÷ requests, shared out by the profile;',
    'differences are in µs of CPU per request by package.',
    'Flame graphs show the main thread’s busy samples of the window (width = share of the busy time; hover for ≈ µs CPU/request).',
  ].join(' ');
  return `<section id="why" class="card"><h2>Why (CPU profiles)</h2>
<p class="note">${note}</p>
${w.diffs.map(diffTable).join('\n')}
${w.cells.map(cellBlock).join('\n')}
</section>`;
}

/**
 * The scripts of the flame graphs: the flame data (a JSON block), d3, d3-flame-graph and
 * html/flame.js; '' when no cell has a flame graph. `libs` replaces the library sources (tests).
 */
export function flameScripts(w: WhyView | null | undefined, libs?: string[]): string {
  const flames = (w?.cells ?? []).flatMap((c) =>
    c.flame.ok ? [{ anchor: c.anchor, totalNs: c.totalNs, totalUs: c.flame.totalUs, tree: c.flame.tree }] : [],
  );
  if (!flames.length) return '';
  const src = [...(libs ?? flameLibSources()), fs.readFileSync(path.join(ASSETS, 'flame.js'), 'utf8')];
  return [
    `<script type="application/json" id="flame-data">${scriptJson(flames)}</script>`,
    ...src.map((s) => `<script>${scriptJs(s)}</script>`),
  ].join('\n');
}
