/**
 * The HTML report's sections after the tables, plain HTML (readable without JavaScript and in
 * print): findings, claims, the Node.js version matrix, the drivers' agreement, the compare view
 * of two runs, runs and method; the table of contents and the folded blocks (`fold`) that hold them.
 */
import type { ReportView } from '../view.ts';
import { fidelityLine } from '../view/runs-view.ts';
import { esc, md, th } from './html-text.ts';

/** The findings: severity chips that count what the filters leave, then the sortable table, worst first; the leak check's line. */
export function issuesSection(v: ReportView): string {
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

/** The claims of the source reports: per claim the source's figure, the decision range, ours and the verdict. */
export function claimsSection(v: ReportView): string {
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

/** The Node.js version matrix: per profile and driver, each major as a % of the reference major (or how to measure one). */
export function nodeMatrixSection(v: ReportView): string {
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

/** Whether the load drivers agree: Spearman's ρ per scenario between their orders (or how to measure it). */
export function driversSection(v: ReportView): string {
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
export const twoRuns = (v: ReportView): boolean => new Set(v.ratios.map((r) => r.runId)).size >= 2;

/** A folded block of the page (<details>): its summary shown, its content on a click or a link into it (page.js opens it). */
export const fold = (id: string, summary: string, body: string): string =>
  `<details class="fold page-fold" id="${esc(id)}"><summary>${md(summary)}</summary>\n${body}\n</details>`;

/** The compare view of two runs: two run pickers and the table the browser script fills. */
export function compareSection(v: ReportView): string {
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

/** The runs and the method: the machine, warnings, the runs' table, the method and fidelity lines. */
export function runsSection(v: ReportView): string {
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

/** The table of contents: the overview, the filters, one link per scenario, then the sections the page has. */
export function toc(v: ReportView): string {
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
