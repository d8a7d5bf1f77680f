/**
 * `results/leaderboard.html`: the leaderboard as one self-contained page, written next to
 * LEADERBOARD.md from the same data (latestCells, buildTables, findIssues, the seed claims).
 *
 * Self-contained: Apache ECharts' minified UMD build is read from node_modules at render time
 * and inlined, and the data is embedded as a JSON block, so the file opens offline. Per table
 * (profile × scenario × driver × Node major): requests/s bars (with 95% CI whiskers when the
 * cell has `stats`), latency percentile curves (p50…p99.9 from `stats.latencyMs`, else
 * p50/p90/p99/max from `load.latencyMs`), server CPU and RSS when the cell has `resources`, and
 * the ranked table. Select filters (scenario, driver, profile, Node) show and hide the tables.
 * The tables, findings, claims and metadata are plain HTML; only the charts need JavaScript.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { CellResult, RunMeta } from '../store/results.ts';
import { buildTables, hyperfineLine, latestCells, type BoardRow, type BoardTable } from './leaderboard.ts';
import { findIssues, type Finding } from './issues.ts';
import { evaluateClaims, formatComparison, loadClaims, type ClaimResult } from './claims.ts';
import { fmtGiB, fmtInt, fmtMs, oneLine } from './format.ts';

/** The chart library inlined into the page (pinned in package.json). */
export function echartsSource(): string {
  const main = createRequire(import.meta.url).resolve('echarts'); // …/echarts/dist/echarts.js
  return fs.readFileSync(path.join(path.dirname(main), 'echarts.min.js'), 'utf8');
}

const MiB = 2 ** 20;

/** One ranked or unranked row as the page's script sees it. Rates in requests/s, times in ms. */
interface PageRow {
  label: string;
  rank: number | null;
  status: string;
  rps: number | null;
  ci: [number, number] | null;
  /** Percentile name → ms, in order (p50 … max). */
  latency: [string, number][];
  cpuAvg: number | null;
  cpuPeak: number | null;
  rssAvgMiB: number | null;
  rssPeakMiB: number | null;
}

interface PageGroup {
  id: string;
  title: string;
  scenario: string;
  profile: string;
  driver: string;
  node: string;
  rows: PageRow[];
}

const PERCENTILES: [string, string][] = [
  ['p50', 'p50'],
  ['p75', 'p75'],
  ['p90', 'p90'],
  ['p95', 'p95'],
  ['p99', 'p99'],
  ['p999', 'p99.9'],
  ['max', 'max'],
];

function latencyPoints(c: CellResult): [string, number][] {
  const src: Record<string, number | undefined> = (c.stats?.latencyMs ?? c.load?.latencyMs ?? {}) as Record<
    string,
    number | undefined
  >;
  return PERCENTILES.filter(([k]) => typeof src[k] === 'number' && Number.isFinite(src[k])).map(([k, name]) => [
    name,
    src[k]!,
  ]);
}

/** The row's 95% interval of requests/s: buildTables' (when it gives one), else the trials'. */
function rowCI(r: BoardRow): [number, number] | null {
  if (r.rank === null) return null;
  return (r as BoardRow & { ci95?: [number, number] | null }).ci95 ?? r.cell.stats?.rps.ci95 ?? null;
}

function pageRow(r: BoardRow): PageRow {
  const res = r.cell.resources;
  return {
    label: r.cell.label,
    rank: r.rank,
    status: r.cell.status,
    rps: r.rps,
    ci: rowCI(r)?.every(Number.isFinite) ? rowCI(r) : null,
    latency: r.rank !== null ? latencyPoints(r.cell) : [],
    cpuAvg: res?.server.cpuPctAvg ?? null,
    cpuPeak: res?.server.cpuPctPeak ?? null,
    rssAvgMiB: res ? res.server.rssBytesAvg / MiB : null,
    rssPeakMiB: res ? res.server.rssBytesPeak / MiB : null,
  };
}

const groupId = (t: BoardTable, i: number) =>
  `g${i}-${[t.scenario, t.profile, t.driver, t.nodeMajor].join('-').replace(/[^A-Za-z0-9-]/g, '_')}`;
const titleOf = (t: BoardTable) => `${t.scenario} · ${t.profile} · ${t.driver} · Node ${t.nodeMajor}`;

// ---- formatting ---------------------------------------------------------------------------

export function esc(s: unknown): string {
  return String(s ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
const fmtMiB = (n: number) => (n >= 100 ? fmtInt(n) : n.toFixed(1));

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

// ---- sections -----------------------------------------------------------------------------

function metaSection(runs: RunMeta[], cells: CellResult[]): string {
  const last = runs[runs.length - 1];
  const m = last.machine;
  const nodes = [...new Set(runs.map((r) => r.node.version).concat(cells.map((c) => c.node.version)))];
  const commits = [
    ...new Set(runs.map((r) => `${r.git.commit?.slice(0, 10) ?? 'unknown'}${r.git.dirty ? '+dirty' : ''}`)),
  ];
  const facts: [string, string][] = [
    ['CPU', `${m.cpuModel}`],
    ['Cores', String(m.cores)],
    ['Memory', fmtGiB(m.memoryBytes)],
    ['OS', `${m.os} (${m.arch})`],
    ['Node.js', nodes.join(', ')],
    ['Git commit', commits.join(', ')],
    ['CPU plan', last.cpuPlan.note],
    ['Profiles', [...new Set(cells.map((c) => c.profile))].join(', ')],
  ];
  const machines = new Set(runs.map((r) => JSON.stringify(r.machine)));
  const crossChecks = runs.filter((r) => r.driverCrossCheck);
  const runRows = runs
    .map(
      (r) =>
        `<tr><td><code>${esc(r.runId)}</code></td><td>${esc(r.startedAt.replace('T', ' ').slice(0, 19))} UTC</td>` +
        `<td>${esc(r.profile)}</td><td>${esc(r.node.version)}</td><td><code>${esc(r.git.commit?.slice(0, 10) ?? 'unknown')}</code>${r.git.dirty ? ' <span class="tag">dirty</span>' : ''}</td>` +
        `<td>${esc(r.cpuPlan.note)}</td>` +
        (machines.size > 1
          ? `<td>${esc(`${r.machine.cpuModel}, ${r.machine.cores} cores, ${fmtGiB(r.machine.memoryBytes)}, ${r.machine.os}`)}</td>`
          : '') +
        `<td>${r.state === 'complete' ? 'complete' : `<span class="sev sev-major">${esc(r.state)}</span>`}</td>` +
        `<td class="num">${cells.filter((c) => c.runId === r.runId).length}</td></tr>`,
    )
    .join('\n');
  return `<section id="machine" class="card">
<h2>Machine and runs</h2>
<dl class="facts">${facts.map(([k, v]) => `<div><dt>${esc(k)}</dt><dd>${esc(v)}</dd></div>`).join('')}</dl>
<details${runs.length <= 4 ? ' open' : ''}><summary>${runs.length} run${runs.length === 1 ? '' : 's'} behind this page</summary>
<div class="scroll"><table class="runs"><thead><tr><th>run</th><th>started</th><th>profile</th><th>Node</th><th>commit</th><th>CPU plan</th>${machines.size > 1 ? '<th>machine</th>' : ''}<th>state</th><th class="num">cells</th></tr></thead>
<tbody>${runRows}</tbody></table></div></details>
${crossChecks.length ? `<h3>Driver cross-check (autocannon vs wrk)</h3>\n<ul class="crosscheck">${crossChecks.map((r) => `<li${r.driverCrossCheck!.driverBound ? ' class="bound"' : ''}><code>${esc(r.runId)}</code>: ${esc(r.driverCrossCheck!.summary.replace(/`/g, ''))}</li>`).join('')}</ul>` : ''}
<p class="note">Absolute requests/s depend on the machine and vary between runs; compare ratios within one run. Latencies come from a closed-loop driver (coordinated omission): they describe the server at saturation.</p>
</section>`;
}

function issuesSection(findings: Finding[], scenarios: string[], profiles: string[]): string {
  // A finding about no single scenario (e.g. startup, `(all)`) stays visible under every scenario filter.
  const only = (v: string, known: string[]) => (known.includes(v) ? v : '');
  const severities = [...new Set<string>(['critical', 'major', 'minor', 'info', ...findings.map((f) => f.severity)])];
  const counts = severities
    .map((s) => [s, findings.filter((f) => f.severity === s).length] as const)
    .filter(([, n]) => n > 0);
  const body = findings.length
    ? `<p class="counts">${counts.map(([s, n]) => `<span class="sev sev-${s}">${n} ${s}</span>`).join(' ')}</p>
<div class="scroll"><table class="issues"><thead><tr><th>severity</th><th>contender</th><th>scenario</th><th>profile</th><th>finding</th></tr></thead><tbody>
${findings
  .map(
    (f) =>
      `<tr class="finding" data-scenario="${esc(only(f.scenario, scenarios))}" data-profile="${esc(only(f.profile, profiles))}"><td><span class="sev sev-${f.severity}">${f.severity}</span></td>` +
      `<td><code>${esc(f.label)}</code></td><td>${esc(f.scenario)}</td><td>${esc(f.profile)}</td><td><strong>${esc(f.title)}</strong>. <span class="evidence">${esc(f.evidence)}</span></td></tr>`,
  )
  .join('\n')}
</tbody></table></div><p class="note hidden" id="issues-filtered">No findings for the selected scenario and profile.</p>`
    : '<p class="ok">None: every cell verified, and no errors, timeouts, non-2xx or body mismatches under load.</p>';
  return `<section id="issues" class="card"><h2>Issues found</h2>${body}</section>`;
}

function claimsSection(results: ClaimResult[]): string {
  const rows = results
    .map((r) => {
      const ours = r.ours === null ? '–' : `${esc(formatComparison(r.claim.compare, r.ours))}`;
      const verdict = r.verdict.replace(' ', '-');
      return (
        `<tr><td>${esc(r.claim.claim)}<div class="sub"><code>${esc(r.claim.a)}</code> vs <code>${esc(r.claim.b)}</code> · ${esc(r.claim.scenario)}</div></td>` +
        `<td>${esc(r.claim.seed.slice(0, 3))}</td><td>${esc(r.claim.seedFigure)}</td><td class="num">${ours}</td>` +
        `<td><span class="verdict v-${verdict}">${esc(r.verdict)}</span><div class="sub">${esc(r.note.replace(/^not measured here: /, ''))}</div></td></tr>`
      );
    })
    .join('\n');
  const tally = (['confirmed', 'refuted', 'inconclusive', 'not measured'] as const)
    .map((v) => [v, results.filter((r) => r.verdict === v).length] as const)
    .filter(([, n]) => n > 0);
  const measured = results.some((r) => r.verdict !== 'not measured');
  return `<section id="claims" class="card"><h2>Seed claims</h2>
<p class="counts">${tally.map(([v, n]) => `<span class="verdict v-${v.replace(' ', '-')}">${n} ${esc(v)}</span>`).join(' ')}</p>
<details${measured ? ' open' : ''}><summary>${results.length} claim${results.length === 1 ? '' : 's'} from the seeds${measured ? '' : ' (none measured in the quick profile yet)'}</summary>
<p class="note">Each seed's claim recomputed from the quick · autocannon · Node 24 cells (data: <code>harness/report/seed-claims.json</code>). Noise band: max(5%, 2·√(cv<sub>a</sub>² + cv<sub>b</sub>²)) from the per-second samples. Confirmed: inside the seed's range widened by the band; inconclusive: outside it, but the two rows are within the band of each other; refuted: outside it and clearly apart.</p>
<div class="scroll"><table class="claims"><thead><tr><th>claim</th><th>seed</th><th>seed's figure</th><th class="num">ours</th><th>verdict</th></tr></thead><tbody>
${rows}
</tbody></table></div></details></section>`;
}

/** Markdown inline code (`x`) from the shared report helpers → HTML, escaping the rest. */
function mdInline(s: string): string {
  return esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function tableHtml(t: BoardTable): string {
  const ranked = t.rows.filter((r) => r.rank !== null);
  const unranked = t.rows.filter((r) => r.rank === null);
  const hasCI = ranked.some((r) => rowCI(r));
  const hasRes = ranked.some((r) => r.cell.resources);
  const pctCI = (r: BoardRow) => (r as BoardRow & { pctCI?: [number, number] | null }).pctCI ?? null;
  const head = [
    '#',
    'contender',
    'requests/s',
    ...(hasCI ? ['95% CI (requests/s)'] : []),
    'p50 (ms)',
    'p99 (ms)',
    'errors',
    '% of node-http',
    ...(hasRes ? ['server CPU avg (%)', 'RSS peak (MiB)', 'requests per CPU-s'] : []),
    'startup (ms)',
    'flags',
  ];
  const num = (i: number) => i !== 1 && i !== head.length - 1;
  const rows = ranked
    .map((r) => {
      const c = r.cell;
      const l = c.load!;
      const lat = c.stats?.latencyMs ?? l.latencyMs;
      const res = c.resources;
      const ci = rowCI(r)?.every(Number.isFinite) ? rowCI(r) : null;
      const pci = pctCI(r)?.every(Number.isFinite) ? pctCI(r) : null;
      const badges = [
        c.target?.kind === 'external' ? '<span class="tag">external</span>' : '',
        c.verification?.level === 'warn'
          ? `<span class="tag warn" title="${esc(c.verification.reasons.join('; '))}">verify warn</span>`
          : '',
        c.stats?.noisy
          ? `<span class="tag warn" title="trials spread ${(c.stats.spread * 100).toFixed(0)}% (max − min) / median">noisy — re-run</span>`
          : '',
        res?.clientBound
          ? '<span class="tag warn" title="the load driver used ≥ 90% of its cores: the figure is a lower bound">client-bound</span>'
          : '',
        c.stats && c.stats.trials > 1 ? `<span class="tag">${c.stats.trials} trials</span>` : '',
      ]
        .filter(Boolean)
        .join(' ');
      const cells = [
        String(r.rank),
        `<span class="swatch" data-label="${esc(c.label)}"></span><code title="${esc(c.displayName)} · run ${esc(c.runId)}">${esc(c.label)}</code>`,
        fmtInt(r.rps!),
        ...(hasCI ? [ci ? `${fmtInt(ci[0])} – ${fmtInt(ci[1])}` : '–'] : []),
        fmtMs(lat.p50),
        fmtMs(lat.p99),
        r.errors ? `<span class="bad">${fmtInt(r.errors)}</span>` : '0',
        r.pctOfBaseline === null
          ? '–'
          : c.label === 'node-http' || !pci
            ? `${r.pctOfBaseline.toFixed(0)}%`
            : `${r.pctOfBaseline.toFixed(0)}% <span class="ci">(${pci[0].toFixed(0)}–${pci[1].toFixed(0)})</span>`,
        ...(hasRes
          ? [
              res ? res.server.cpuPctAvg.toFixed(0) : '–',
              res ? fmtMiB(res.server.rssBytesPeak / MiB) : '–',
              res ? fmtInt(res.rpsPerCpuSecond) : '–',
            ]
          : []),
        c.startupMs === null ? '–' : fmtInt(c.startupMs),
        `<span class="flags">${badges}</span>`,
      ];
      return `<tr>${cells.map((x, i) => `<td${num(i) ? ' class="num"' : i === 1 ? ' class="who"' : ''}>${x}</td>`).join('')}</tr>`;
    })
    .join('\n');
  let summary = '';
  try {
    const line = ranked.length > 1 ? hyperfineLine(ranked) : null;
    if (line && !/NaN|Infinity/.test(line)) summary = `<p class="summary">${mdInline(line)}</p>`;
  } catch {
    /* the summary is optional */
  }
  const table = ranked.length
    ? `${summary}<div class="scroll"><table class="board"><thead><tr>${head.map((h, i) => `<th${num(i) ? ' class="num"' : ''}>${esc(h)}</th>`).join('')}</tr></thead><tbody>\n${rows}\n</tbody></table></div>`
    : '<p class="note">No contender was measured in this cell.</p>';
  const not = unranked.length
    ? `<div class="unranked"><h4>Not ranked</h4><ul>${unranked.map((r) => `<li><code>${esc(r.cell.label)}</code> <span class="tag ${r.cell.status === 'skipped' || r.cell.status === 'unsupported' ? '' : 'bad'}">${esc(r.cell.status)}</span> ${esc(oneLine(r.cell.failure?.reason ?? ''))}</li>`).join('')}</ul></div>`
    : '';
  return table + not;
}

function groupSection(t: BoardTable, g: PageGroup): string {
  const ranked = g.rows.filter((r) => r.rank !== null);
  const hasCi = ranked.some((r) => r.ci);
  const trials = t.rows.some((r) => r.rank !== null && (r.cell.stats?.trials ?? 1) > 1);
  const hasStatsLat = ranked.some((r) => r.latency.some(([p]) => p === 'p99.9' || p === 'p75'));
  const hasRes = ranked.some((r) => r.cpuAvg !== null);
  const profile = t.rows.find((r) => r.cell.load)?.cell.load?.profile;
  const shape = profile
    ? profile.driver === 'autocannon'
      ? `${profile.connections} connections, pipelining ${profile.pipelining}, ${profile.durationS} s measured`
      : `k6 ${profile.executor ?? ''}`
    : '';
  const chart = (kind: string, title: string, sub: string) =>
    `<figure class="chart-box"><figcaption>${esc(title)}<span class="sub">${esc(sub)}</span></figcaption><div class="chart" data-chart="${kind}" data-group="${g.id}"></div></figure>`;
  const charts = ranked.length
    ? `<div class="charts">
${chart('rps', `Requests/s — ${t.scenario}`, `${trials ? 'median of the trials' : 'mean over the measured window'}${hasCi ? `, whiskers: 95% CI${trials ? '' : ' from the per-second samples'}` : ''} · higher is better`)}
${chart('latency', `Latency percentiles (ms) — ${t.scenario}`, `${hasStatsLat ? (trials ? 'HDR histograms of the trials, merged' : 'HDR histogram of the run') : 'p50 / p90 / p99 / max of the run'} · log scale · lower is better`)}
${hasRes ? chart('cpu', `Server CPU (%) — ${t.scenario}`, 'average and peak, 100% = one core') : ''}
${hasRes ? chart('rss', `Server memory RSS (MiB) — ${t.scenario}`, 'average and peak over the measured window') : ''}
</div>`
    : '';
  return `<section class="group card" id="${g.id}" data-scenario="${esc(t.scenario)}" data-driver="${esc(t.driver)}" data-profile="${esc(t.profile)}" data-node="${esc(g.node)}">
<h3>${esc(g.title)}</h3>${shape ? `<p class="shape">${esc(shape)}</p>` : ''}
${charts}
${tableHtml(t)}
</section>`;
}

function filterSelect(id: string, label: string, values: string[], show: (v: string) => string = (v) => v): string {
  return `<label>${esc(label)} <select id="${id}"><option value="">all</option>${values.map((v) => `<option value="${esc(v)}">${esc(show(v))}</option>`).join('')}</select></label>`;
}

const CSS = `
:root{--bg:#f5f6f8;--card:#fff;--ink:#1d2430;--mute:#5d6778;--line:#e3e6eb;--accent:#2f6fdb;--crit:#b42318;--major:#c4650a;--minor:#6b7280;--ok:#1d7a46}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
header.top{background:#18202e;color:#fff;padding:20px 28px}
header.top h1{margin:0 0 4px;font-size:22px;font-weight:650}
header.top p{margin:0;color:#b9c2d0}
main{max-width:1280px;margin:0 auto;padding:16px 20px 40px}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:16px 20px;margin:16px 0;box-shadow:0 1px 2px rgba(16,24,40,.04)}
h2{font-size:17px;margin:0 0 12px}
h3{font-size:16px;margin:0}
h4{font-size:13px;margin:12px 0 4px;color:var(--mute)}
.shape{margin:2px 0 10px;color:var(--mute);font-size:12.5px}
.filters{position:sticky;top:0;z-index:10;display:flex;flex-wrap:wrap;gap:10px 18px;align-items:center;background:rgba(245,246,248,.95);backdrop-filter:blur(4px);padding:10px 2px;border-bottom:1px solid var(--line)}
.filters label{font-size:13px;color:var(--mute);display:flex;gap:6px;align-items:center}
.filters select{font:inherit;color:var(--ink);padding:4px 8px;border:1px solid #c9ced6;border-radius:6px;background:#fff;min-width:110px}
.filters .shown{margin-left:auto;font-size:12.5px;color:var(--mute)}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:8px 20px;margin:0 0 12px}
.facts div{min-width:0}
.facts dt{font-size:11.5px;text-transform:uppercase;letter-spacing:.04em;color:var(--mute)}
.facts dd{margin:0;font-weight:550;overflow-wrap:anywhere}
summary{cursor:pointer;color:var(--accent);margin:4px 0}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{padding:6px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-size:12px;color:var(--mute);font-weight:600;background:#fafbfc;vertical-align:bottom}
table.board th.num{white-space:normal;max-width:110px}
td code,td.who{white-space:nowrap}
.flags{display:flex;flex-wrap:wrap;gap:3px}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tbody tr:hover{background:#f8fafc}
.scroll{overflow-x:auto}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1f3f6;padding:1px 4px;border-radius:4px}
.note{color:var(--mute);font-size:12.5px;margin:10px 0 0}
.crosscheck{margin:6px 0 0;padding-left:18px;font-size:13px}.crosscheck li.bound{color:var(--major)}
.sub{display:block;color:var(--mute);font-size:12px;font-weight:400}
.ok{color:var(--ok);font-weight:550}
.bad{color:var(--crit);font-weight:600}
.evidence{color:#394150}
.sev,.tag,.verdict{display:inline-block;border-radius:999px;padding:1px 8px;font-size:11.5px;font-weight:600;white-space:nowrap;background:#eef0f3;color:#3d4654}
.sev-critical{background:#fde8e7;color:var(--crit)}.sev-major{background:#fdf0e1;color:var(--major)}.sev-minor{background:#eef0f3;color:var(--minor)}.sev-info{background:#e7effc;color:#2f5fb3}
.tag.warn{background:#fdf0e1;color:var(--major)}.tag.bad{background:#fde8e7;color:var(--crit)}
.v-confirmed{background:#e3f4ea;color:var(--ok)}.v-refuted{background:#fde8e7;color:var(--crit)}.v-inconclusive{background:#fdf0e1;color:var(--major)}.v-not-measured{background:#eef0f3;color:var(--minor)}
.counts{margin:0 0 10px}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(440px,1fr));gap:14px;margin:10px 0 14px}
.chart-box{margin:0;border:1px solid var(--line);border-radius:8px;padding:10px 12px 4px;min-width:0}
.chart-box figcaption{font-weight:600;font-size:13px}
.chart{width:100%;height:260px}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;vertical-align:-1px;background:#ccc}
.summary{margin:4px 0 8px;font-size:13px;color:#394150}
.ci{color:var(--mute);font-size:12px}
.unranked ul{margin:0;padding-left:18px}.unranked li{margin:2px 0}
.hidden{display:none!important}
#empty{text-align:center;color:var(--mute)}
footer{color:var(--mute);font-size:12px;text-align:center;margin-top:24px}
@media (max-width:560px){.charts{grid-template-columns:1fr}main{padding:8px}}
`;

/**
 * The page's script (plain JavaScript, embedded via toString: it must not use anything from
 * this module's scope). Draws the charts of visible groups, wires the filters.
 */
function pageScript(): void {
  const echarts = (window as any).echarts;
  const data = JSON.parse(document.getElementById('bench-data')!.textContent!);
  const PALETTE = [
    '#2f6fdb',
    '#e8590c',
    '#2b8a3e',
    '#c2255c',
    '#7048e8',
    '#0b7285',
    '#a07a00',
    '#5c940d',
    '#d6336c',
    '#495057',
    '#1098ad',
    '#f08c00',
    '#364fc7',
    '#9c36b5',
    '#087f5b',
    '#e03131',
  ];
  const color = (label: string) => PALETTE[data.labels.indexOf(label) % PALETTE.length] ?? '#888';
  const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
  const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n >= 10 ? n.toFixed(1) : n.toFixed(2));
  const groups = new Map(data.groups.map((g: any) => [g.id, g]));
  const charts: any[] = [];

  document.querySelectorAll('.swatch').forEach((el: any) => {
    el.style.background = color(el.dataset.label);
  });

  const font = { fontFamily: 'system-ui, -apple-system, Segoe UI, Roboto, Arial, sans-serif' };
  const gridBase = { left: 12, right: 24, top: 10, bottom: 28, containLabel: true };

  function barOption(g: any, pick: (r: any) => number | null, unit: string, ci: boolean): any {
    const rows = g.rows.filter((r: any) => r.rank !== null);
    const labels = rows.map((r: any) => r.label);
    const series: any[] = [
      {
        type: 'bar',
        barMaxWidth: 26,
        data: rows.map((r: any) => ({
          value: pick(r),
          itemStyle: { color: color(r.label), borderRadius: [0, 3, 3, 0] },
        })),
      },
    ];
    if (ci && rows.some((r: any) => r.ci)) {
      series.push({
        type: 'custom',
        name: '95% CI',
        z: 5,
        data: rows.map((r: any, i: number) => (r.ci ? [i, r.ci[0], r.ci[1]] : [i, null, null])),
        renderItem: (_params: any, api: any) => {
          if (api.value(1) == null || Number.isNaN(api.value(1))) return null;
          const lo = api.coord([api.value(1), api.value(0)]);
          const hi = api.coord([api.value(2), api.value(0)]);
          const h = api.size([0, 1])[1] * 0.25;
          const style = { stroke: '#1d2430', lineWidth: 1.5 };
          return {
            type: 'group',
            children: [
              { type: 'line', shape: { x1: lo[0], y1: lo[1], x2: hi[0], y2: hi[1] }, style },
              { type: 'line', shape: { x1: lo[0], y1: lo[1] - h, x2: lo[0], y2: lo[1] + h }, style },
              { type: 'line', shape: { x1: hi[0], y1: hi[1] - h, x2: hi[0], y2: hi[1] + h }, style },
            ],
          };
        },
        encode: { x: [1, 2], y: 0 },
      });
    }
    return {
      textStyle: font,
      animation: false,
      grid: { ...gridBase, right: 8 },
      tooltip: {
        trigger: 'axis',
        axisPointer: { type: 'shadow' },
        formatter: (ps: any) => {
          const r = rows[ps[0]?.dataIndex];
          if (!r) return '';
          const v = pick(r);
          const esc = (x: string) => x.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
          return `<b>${esc(r.label)}</b><br>${v == null ? '–' : `${fmtInt(v)} ${unit}`}${r.ci ? `<br>95% CI ${fmtInt(r.ci[0])} – ${fmtInt(r.ci[1])}` : ''}`;
        },
      },
      xAxis: {
        type: 'value',
        name: unit,
        nameLocation: 'middle',
        nameGap: 26,
        axisLabel: { formatter: (v: number) => (v >= 1000 ? `${v / 1000}k` : String(v)) },
        splitLine: { lineStyle: { color: '#eceef2' } },
      },
      // The figures sit in a second category axis on the right, so whiskers never cross them.
      yAxis: [
        {
          type: 'category',
          data: labels,
          inverse: true,
          axisTick: { show: false },
          axisLabel: { color: '#1d2430', width: 180, overflow: 'truncate' },
        },
        {
          type: 'category',
          data: rows.map((r: any) => (pick(r) == null ? '–' : fmtInt(pick(r)!))),
          inverse: true,
          position: 'right',
          axisLine: { show: false },
          axisTick: { show: false },
          axisLabel: { color: '#1d2430', fontWeight: 600, fontSize: 11.5 },
        },
      ],
      series,
    };
  }

  function pairOption(g: any, avg: (r: any) => number | null, peak: (r: any) => number | null, unit: string): any {
    const rows = g.rows.filter((r: any) => r.rank !== null && avg(r) != null);
    return {
      textStyle: font,
      animation: false,
      grid: { ...gridBase, top: 30 },
      legend: { top: 0, right: 0, itemWidth: 12, itemHeight: 8, data: ['average', 'peak'] },
      tooltip: {
        trigger: 'axis',
        axisPointer: { type: 'shadow' },
        valueFormatter: (v: any) => (v == null ? '–' : `${fmt(v)} ${unit}`),
      },
      xAxis: {
        type: 'value',
        name: unit,
        nameLocation: 'middle',
        nameGap: 26,
        splitLine: { lineStyle: { color: '#eceef2' } },
      },
      yAxis: {
        type: 'category',
        data: rows.map((r: any) => r.label),
        inverse: true,
        axisTick: { show: false },
        axisLabel: { color: '#1d2430', width: 180, overflow: 'truncate' },
      },
      series: [
        {
          name: 'average',
          type: 'bar',
          barMaxWidth: 14,
          itemStyle: { color: '#5d6778' },
          data: rows.map((r: any) => ({ value: avg(r), itemStyle: { color: color(r.label) } })),
        },
        {
          name: 'peak',
          type: 'bar',
          barMaxWidth: 14,
          itemStyle: { color: '#c3c8d0' },
          data: rows.map((r: any) => ({ value: peak(r), itemStyle: { color: color(r.label), opacity: 0.4 } })),
        },
      ],
    };
  }

  function latencyOption(g: any): any {
    const rows = g.rows.filter((r: any) => r.rank !== null && r.latency.length);
    const order = ['p50', 'p75', 'p90', 'p95', 'p99', 'p99.9', 'max'];
    const cats = order.filter((p) => rows.some((r: any) => r.latency.some((x: any) => x[0] === p)));
    return {
      // A plain legend wraps; leave room for about three entries per line.
      textStyle: font,
      animation: false,
      grid: { ...gridBase, top: 14 + 22 * Math.ceil(rows.length / 3) },
      legend: { top: 0, left: 0, right: 0, itemWidth: 14, itemHeight: 8, itemGap: 12 },
      tooltip: { trigger: 'axis', valueFormatter: (v: any) => (v == null ? '–' : `${fmt(v)} ms`) },
      xAxis: {
        type: 'category',
        data: cats,
        boundaryGap: false,
        name: 'percentile',
        nameLocation: 'middle',
        nameGap: 26,
      },
      yAxis: {
        type: 'log',
        name: 'latency (ms)',
        nameLocation: 'middle',
        nameGap: 44,
        axisLabel: { formatter: (v: number) => fmt(v) },
        splitLine: { lineStyle: { color: '#eceef2' } },
      },
      series: rows.map((r: any) => {
        const m = new Map(r.latency);
        return {
          name: r.label,
          type: 'line',
          connectNulls: true,
          symbolSize: 6,
          lineStyle: { width: 2 },
          itemStyle: { color: color(r.label) },
          data: cats.map((p) => {
            const v: any = m.get(p);
            return typeof v === 'number' && v > 0 ? v : null;
          }),
        };
      }),
    };
  }

  function draw(el: any): void {
    if (el.dataset.drawn) return;
    const g: any = groups.get(el.dataset.group);
    if (!g) return;
    const ranked = g.rows.filter((r: any) => r.rank !== null).length;
    const kind = el.dataset.chart;
    el.style.height = `${Math.max(240, 90 + ranked * 30)}px`;
    const chart = echarts.init(el, null, { renderer: 'svg' });
    const opt =
      kind === 'rps'
        ? barOption(g, (r) => r.rps, 'requests/s', true)
        : kind === 'latency'
          ? latencyOption(g)
          : kind === 'cpu'
            ? pairOption(
                g,
                (r) => r.cpuAvg,
                (r) => r.cpuPeak,
                'CPU %',
              )
            : pairOption(
                g,
                (r) => r.rssAvgMiB,
                (r) => r.rssPeakMiB,
                'MiB',
              );
    chart.setOption(opt);
    el.dataset.drawn = '1';
    charts.push(chart);
  }

  const sel = (id: string) => document.getElementById(id) as HTMLSelectElement;
  const filters = [
    ['f-scenario', 'scenario'],
    ['f-driver', 'driver'],
    ['f-profile', 'profile'],
    ['f-node', 'node'],
  ] as const;
  function apply(): void {
    const want = Object.fromEntries(filters.map(([id, key]) => [key, sel(id)?.value ?? '']));
    let shown = 0;
    document.querySelectorAll('section.group').forEach((s: any) => {
      const ok = filters.every(([, key]) => !want[key] || s.dataset[key] === want[key]);
      s.classList.toggle('hidden', !ok);
      if (ok) shown++;
    });
    let findings = 0;
    document.querySelectorAll('tr.finding').forEach((tr: any) => {
      const ok =
        (!want.scenario || !tr.dataset.scenario || tr.dataset.scenario === want.scenario) &&
        (!want.profile || !tr.dataset.profile || tr.dataset.profile === want.profile);
      tr.classList.toggle('hidden', !ok);
      if (ok) findings++;
    });
    document
      .getElementById('issues-filtered')
      ?.classList.toggle('hidden', findings > 0 || !document.querySelector('tr.finding'));
    document.getElementById('empty')?.classList.toggle('hidden', shown > 0);
    const counter = document.getElementById('shown');
    if (counter) counter.textContent = `${shown} of ${data.groups.length} result tables shown`;
    document.querySelectorAll('section.group:not(.hidden) .chart').forEach(draw);
    for (const c of charts) c.resize();
    const q = new URLSearchParams();
    for (const [key, v] of Object.entries(want)) if (v) q.set(key, v as string);
    const hash = q.toString();
    if (location.hash.slice(1) !== hash)
      history.replaceState(null, '', hash ? `#${hash}` : location.pathname + location.search);
  }
  // Filters from the URL hash (#scenario=json&profile=quick) so a view can be shared.
  const initial = new URLSearchParams(location.hash.slice(1));
  for (const [id, key] of filters) {
    const s = sel(id);
    if (!s) continue;
    const v = initial.get(key);
    if (v && [...s.options].some((o) => o.value === v)) s.value = v;
    s.addEventListener('change', apply);
  }
  document.getElementById('f-reset')?.addEventListener('click', () => {
    for (const [id] of filters) if (sel(id)) sel(id).value = '';
    apply();
  });
  window.addEventListener('resize', () => {
    for (const c of charts) c.resize();
  });
  apply();
  document.body.dataset.ready = '1';
}

/** The whole page. `runs` supply the machine and run metadata; cells are reduced to the latest per cell key. */
export function renderHtml(
  all: CellResult[],
  runs: RunMeta[],
  scenarioOrder: string[],
  profileOrder: string[],
  echarts = echartsSource(),
): string {
  const cells = latestCells(all);
  const usedRuns = runs
    .filter((r) => cells.some((c) => c.runId === r.runId))
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const tables = buildTables(cells, scenarioOrder, profileOrder);
  const groups: PageGroup[] = tables.map((t, i) => ({
    id: groupId(t, i),
    title: titleOf(t),
    scenario: t.scenario,
    profile: t.profile,
    driver: t.driver,
    node: String(t.nodeMajor),
    rows: t.rows.map(pageRow),
  }));
  const labels = [...new Set(cells.map((c) => c.label))].sort((a, b) =>
    a === 'node-http' ? -1 : b === 'node-http' ? 1 : a.localeCompare(b),
  );
  const generatedAt = new Date().toISOString();
  const data = { generatedAt, labels, groups };
  const uniq = <T>(xs: T[]) => [...new Set(xs)];
  const idx = (list: string[], x: string) => (list.includes(x) ? list.indexOf(x) : list.length);
  const scenarios = uniq(tables.map((t) => t.scenario)).sort(
    (a, b) => idx(scenarioOrder, a) - idx(scenarioOrder, b) || a.localeCompare(b),
  );
  const profiles = uniq(tables.map((t) => t.profile)).sort(
    (a, b) => idx(profileOrder, a) - idx(profileOrder, b) || a.localeCompare(b),
  );
  const drivers = uniq(tables.map((t) => t.driver)).sort();
  const nodes = uniq(tables.map((t) => String(t.nodeMajor))).sort((a, b) => Number(a) - Number(b));

  const body =
    !usedRuns.length || !tables.length
      ? '<section class="card"><h2>No results yet</h2><p>Run <code>npx just bench-all</code>, then <code>npx just leaderboard</code>.</p></section>'
      : `<nav class="filters" aria-label="filters">
${filterSelect('f-scenario', 'Scenario', scenarios)}
${filterSelect('f-driver', 'Driver', drivers)}
${filterSelect('f-profile', 'Profile', profiles)}
${filterSelect('f-node', 'Node', nodes, (v) => `Node ${v}`)}
<button id="f-reset" type="button" style="font:inherit;font-size:12.5px;padding:4px 10px;border:1px solid #c9ced6;border-radius:6px;background:#fff;cursor:pointer">reset</button>
<span class="shown" id="shown">${tables.length} result tables</span>
</nav>
${metaSection(usedRuns, cells)}
${issuesSection(findIssues(cells), scenarios, profiles)}
${claimsSection(evaluateClaims(loadClaims(), cells))}
<div id="results">
${tables.map((t, i) => groupSection(t, groups[i])).join('\n')}
<section id="empty" class="card hidden"><p>No results match these filters.</p></section>
</div>`;

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="node-http-bakeoff harness/report/html.ts">
<title>Node.js HTTP bake-off — leaderboard</title>
<style>${CSS}</style>
</head>
<body>
<header class="top"><h1>Node.js HTTP bake-off — leaderboard</h1>
<p>The latest result of every cell in <code style="background:#2a3446;color:#dfe6f1">results/runs/</code>, generated ${esc(generatedAt.replace('T', ' ').slice(0, 16))} UTC by <code style="background:#2a3446;color:#dfe6f1">just leaderboard</code>. Do not edit by hand.</p></header>
<main>
${body}
<footer>Charts: Apache ECharts (Apache-2.0), inlined. Requests/s higher is better; latency, CPU and memory lower is better.</footer>
</main>
<script type="application/json" id="bench-data">${scriptJson(data)}</script>
<script>${scriptJs(echarts)}</script>
<script>(${scriptJs(pageScript.toString())})();</script>
</body>
</html>
`;
}
