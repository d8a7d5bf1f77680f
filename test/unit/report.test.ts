// The Markdown and terminal exporters over a snapshot of two runs (test/report-fixture.ts): the
// overview comes first, every printed interval names its kind and contains its figure, ranks and
// ties come from the analysis, other-run cells appear only as ratios marked with their run,
// failed and few-trial cells are not ranked, the terminal has no rules between rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readSnapshot } from '../../harness/cli/report.ts';
import { EXPORTERS, getExporter } from '../../harness/report/exporters/exporter-registry.ts';
import { fmtEstimate, outward, sig } from '../../harness/core/format.ts';
import { selectRun } from '../../harness/report/snapshot.ts';
import { buildView, resolutionOf } from '../../harness/report/view-build.ts';
import { five, joinedSnapshot, printedIntervals, reportSnapshot } from '../report-fixture.ts';
import { makeCell, makeMeta } from '../fixtures.ts';
import { ROOT } from '../helpers.ts';

const NOW = new Date('2026-11-22T01:00:00Z');

test('format: intervals named by kind, bounds rounded outward, 3 significant digits', () => {
  assert.equal(
    fmtEstimate({ figure: 12_345.4, interval: [12_000.6, 12_600.2], kind: 'ci95', n: 5 }),
    '12,345 (95% CI 12,000–12,601)',
  );
  assert.equal(fmtEstimate({ figure: 50, interval: [40, 60], kind: 'range', n: 3 }), '50 (range (3 trials) 40–60)');
  assert.equal(fmtEstimate({ figure: 50, interval: null, kind: 'none', n: 1 }), '50 (one trial, no interval)');
  // A figure that rounds up past its high bound still sits inside: the bound is ceiled.
  assert.equal(
    fmtEstimate({ figure: 0.99949, interval: [0.9901, 0.9995], kind: 'ci95', n: 5 }, { scale: 100, unit: '%' }),
    '100% (95% CI 99–100%)',
  );
  assert.deepEqual(outward([1.234, 5.671], 0.01), [1.23, 5.68]);
  assert.deepEqual(outward([3, 4], 1), [3, 4], 'integers stay put');
  assert.equal(sig(1234.5), 1230);
  assert.equal(sig(0.012345), 0.0123);
});

test('markdown: overview first, then details, issues, claims, Node matrix, method', () => {
  const md = EXPORTERS.md.render(reportSnapshot(), { now: NOW });
  const at = (s: string) => {
    const i = md.indexOf(s);
    assert.ok(i >= 0, `missing ${s}`);
    return i;
  };
  const order = [
    '## Overview',
    '**How sure:**',
    '% of each scenario',
    '## Details',
    '## Findings',
    '## Claims',
    '## Node.js version matrix',
    '## Method',
  ].map(at);
  assert.deepEqual(
    [...order].sort((a, b) => a - b),
    order,
    'sections in the order of issue 14.1',
  );
  assert.ok(md.split('\n').findIndex((l) => l.startsWith('## Overview')) < 15, 'the overview is on the first screen');
  // Winners with ties: node-http and fastify are within the noise threshold of each other.
  assert.match(
    md,
    /\| \[ping\]\(#t-ping-quick-autocannon-node24\) \(quick · autocannon · Node 24\) \| `node-http`, `fastify` \(tied\)/,
  );
  // A single winner, significantly ahead: its margin over the next row.
  assert.match(
    md,
    /\| \[echo\]\(#t-echo-quick-autocannon-node24\) \(quick · autocannon · Node 24\) \| `hono` \| 1\.06× \(95% CI 1\.0\d–1\.0\d\) the next \(`node-http`\)/,
  );
  // The matrix: fastify client-bound (≥), hono not ranked (†), broken failed, node-http the baseline.
  assert.match(md, /\| `fastify` \| \*\*9\d% \(\d+–\d+\)\*\* ≥ \|/);
  assert.match(md, /\| `hono` \| 7\d% \(\d+–\d+\) †/);
  assert.match(md, /\| `broken` \| – \| – \| – \| – \| failed \|/);
  assert.match(md, /\| `node-http` \| \*\*100%\*\* \(baseline\)/);
  assert.match(
    md,
    /\*\*How sure:\*\* no A\/A control in this run · median minimum detectable difference [\d.]+% between two rows \(90% power; \d+ tables( of the overview)?\) · 3–5 trials per cell; \d+ of \d+ cells have a 95% CI · \d+ of \d+ tables( of the overview)? noisy \(see their notes\) · \d+ client-bound/,
  );
  // Details: ranked rows, the summary sentence from the rank test, measurement notes, not ranked.
  assert.match(md, /\| 3 \| `express` \| 9,0\d\d \| 95% CI 8,\d{3}–9,\d{3} \| 45% \(95% CI 4\d–4\d%\)/);
  assert.match(
    md,
    /`node-http` ran 2\.2\d× \(95% CI 2\.\d\d–2\.\d\d\) as fast as `express`(, [^;]+)?; it is (equal within 5% to|not resolved from) `fastify`/,
  );
  assert.match(md, /\*\*Measurement notes\*\*\n\n- client-bound \(`fastify`\): .*lower bounds/);
  assert.match(md, /- few trials \(`hono`\): fewer than 5 trials/);
  assert.match(md, /- other runs \(`koa`\): 1 row\(s\) from other runs \(r1\)/);
  assert.match(md, /- `hono`: 3 trials \(fewer than 5\): [\d,]+ requests\/s, range \(3 trials\) [\d,]+–[\d,]+/);
  assert.match(md, /- `broken`: failed: 8\.9\d% of requests failed/);
  // Variant overhead, with its interval.
  assert.match(
    md,
    /\*\*Variant overhead\*\*\n\n- `express \+interceptor` vs `express`: \+12\.0% time per request \(95% CI, table model \+\d+\.\d% … \+\d+\.\d%\)/,
  );
  // Cells of another run: ratio only, marked with their run, never ranked.
  assert.match(md, /- `koa` \(run `r1`\): 57% \(95% CI 5\d–5\d%\) of its baseline/);
  assert.doesNotMatch(md, /\| \d+ \| `koa`/);
  // Node matrix: ping on Node 22 and 24.
  assert.match(md, /\| contender \| scenario \| Node 22 \(% of Node 24\) \| Node 24 \(reference\) \|/);
  // Solo windows only in the fixture: an unpaired ratio, said so (18,000 of 20,000 req/s).
  assert.match(md, /\| `node-http` \| ping \| 90% \(95% CI \d+%–\d+%, unpaired\) \| 100% · 20,0\d\d req\/s \|/);
  // Never a range called an interval, and every printed interval contains its figure.
  for (const line of md.split('\n').filter((l) => l.startsWith('- `hono`')))
    assert.ok(line.includes('range (3 trials)') && !line.includes('95% CI'), `a range is never called a CI: ${line}`);
  const ivs = printedIntervals(md);
  assert.ok(ivs.length > 12, `found ${ivs.length} printed intervals`);
  for (const m of md.matchAll(/\| \*{0,2}(\d+)% \((\d+)–(\d+)\)/g))
    assert.ok(
      Number(m[2]) <= Number(m[1]) && Number(m[1]) <= Number(m[3]),
      `matrix cell outside its interval: ${m[0]}`,
    );
  for (const iv of ivs) assert.ok(iv.lo <= iv.figure && iv.figure <= iv.hi, `outside its interval: ${iv.at}`);
});

test('terminal --details: overview, then per table rank, contender, requests/s, interval, p99, flags, summary; no rules', () => {
  const text = EXPORTERS.terminal.render(reportSnapshot(), { now: NOW, details: true, width: 200 });
  const lines = text.split('\n');
  assert.match(lines[0]!, /^Overview \(/);
  assert.ok(
    lines.some((l) => /^ {2}How sure: /.test(l)),
    'how sure with --details',
  );
  assert.doesNotMatch(text, /[─│┌┐└┘├┤┬┴┼]|^\s*[-=+]{5,}/m, 'no box drawing or rules between rows');
  const head = lines.findIndex((l) => l.startsWith('ping · quick · autocannon · Node 24 · run r2'));
  assert.ok(head > 0);
  // Every row of the ping table has a 95% CI: the header names it once.
  assert.match(lines[head + 1]!, /^ +#\s+contender\s+requests\/s\s+95% CI\s+p99 ms\s+flags$/);
  // Rank ranges: node-http and fastify are not resolved apart (fastify varies ±4% by round), so both are 1–2.
  assert.match(lines[head + 2]!, /^ {2}1–2\s+node-http\s+(19|20),\d{3}\s+[\d,]+–[\d,]+\s+3\.00$/);
  assert.match(
    lines[head + 3]!,
    /^ {2}1–2\s+fastify\s+19,\d{3}\s+[\d,]+–[\d,]+\s+3\.00\s+client-bound \(lower bound\)$/,
  );
  assert.match(text, /\n {2}– koa \(other run\): 57% of node-http in run r1 \(95% CI 5\d–5\d\)/);
  assert.match(text, /node-http ran 2\.2\d× \(95% CI [\d.]+–[\d.]+\) as fast as express/);
  // Columns line up: the requests/s column ends at the same position on every ranked row.
  const rows = lines.slice(head + 2, head + 5);
  const ends = rows.map((l) => l.search(/\d\s+[\d,]+–/));
  assert.equal(new Set(ends).size, 1, rows.join('\n'));
  for (const iv of printedIntervals(text)) assert.ok(iv.lo <= iv.figure && iv.figure <= iv.hi, iv.at);
});

test('leaderboard --run: one run only, no other-run rows; unknown run is a usage error', () => {
  const s = reportSnapshot();
  const one = selectRun(s, 'r2');
  const v = buildView(one, { runId: 'r2' });
  assert.deepEqual(
    v.runs.map((r) => r.runId),
    ['r2'],
  );
  assert.ok(v.tables.every((t) => t.rows.every((r) => !r.otherRun && r.runId === 'r2')));
  assert.doesNotMatch(EXPORTERS.md.render(one, { runId: 'r2' }), /koa/);
  assert.throws(() => selectRun(s, 'nope'), /no run named 'nope'.*Latest runs: r1, r2/);
  assert.throws(() => selectRun(s, 'r'), /matches 2 runs/);
  assert.throws(() => getExporter('xml'), /--format must be one of md, terminal, html, json, csv/);
  assert.equal(getExporter('markdown').format, 'md');
  // The registry's key is the exporter's own format; an Object.prototype name is not a format.
  for (const [key, exporter] of Object.entries(EXPORTERS)) assert.equal(exporter.format, key);
  assert.throws(() => getExporter('toString'), /--format must be one of/);
});

test('the header says once when ranking fell back to autocannon, with the install command', () => {
  const s = reportSnapshot();
  const runs = s.runs.map((r) => ({
    ...r,
    meta: { ...r.meta, design: { baselines: { ping: 'node-http' }, burstRequests: 2000, driverAsked: 'native' } },
  }));
  const md = EXPORTERS.md.render({ ...s, runs }, { now: NOW });
  // A run whose profile asked for autocannon (as `pipelined` did before wrk pipelined) did not fall back.
  const asked = runs.map((r) => ({
    ...r,
    meta: { ...r.meta, design: { ...r.meta.design, driverAsked: 'autocannon' } },
  }));
  assert.doesNotMatch(EXPORTERS.md.render({ ...s, runs: asked }, { now: NOW }), /fell back/);
  const hits = md.match(/ranking fell back to autocannon/g) ?? [];
  assert.equal(hits.length, 1, 'said once');
  assert.match(md, /> \*\*Driver:\*\* ranking fell back to autocannon in run `r2`: .*install wrk \(.*apt-get install/);
  assert.doesNotMatch(
    EXPORTERS.md.render(s, { now: NOW }),
    /fell back/,
    'old runs (no design record) chose autocannon',
  );
});

test('an empty store renders a pointer to bench-all in every format', () => {
  const empty = { runs: [], scenarios: reportSnapshot().scenarios };
  assert.match(EXPORTERS.md.render(empty), /No results yet: run `npx just bench-all`/);
  assert.match(EXPORTERS.terminal.render(empty), /No results yet/);
  assert.equal(JSON.parse(EXPORTERS.json.render(empty)).rows.length, 0);
});

test('the committed results: every interval printed in Markdown and the terminal, and exported in JSON, contains its figure', () => {
  const { snapshot } = readSnapshot(path.join(ROOT, 'results'), path.join(ROOT, 'scenarios'));
  if (!snapshot.runs.length) return; // a fresh clone without results: nothing to check
  for (const f of ['md', 'terminal'] as const) {
    const text = EXPORTERS[f].render(snapshot, { now: NOW, details: true, width: 1000 });
    for (const iv of printedIntervals(text)) assert.ok(iv.lo <= iv.figure && iv.figure <= iv.hi, `${f}: ${iv.at}`);
  }
  const doc = JSON.parse(EXPORTERS.json.render(snapshot, { now: NOW }));
  for (const r of doc.rows) {
    if (r.rps_low !== null) assert.ok(r.rps_low <= r.rps && r.rps <= r.rps_high, `${r.run_id} ${r.cell_id}`);
    if (r.pct_low !== null) assert.ok(r.pct_low <= r.pct_of_baseline && r.pct_of_baseline <= r.pct_high, r.cell_id);
  }
});

test('how sure: the driver fidelity sentence of the run is on the first screen', () => {
  const s = reportSnapshot();
  const runs = s.runs.map((r) =>
    r.meta.runId === 'r2'
      ? {
          ...r,
          meta: {
            ...r.meta,
            fidelity: { status: 'ok', summary: 'autocannon reached 97% of wrk on node-http · ping.' } as any,
          },
        }
      : r,
  );
  const md = EXPORTERS.md.render({ ...s, runs }, { now: NOW });
  assert.match(md, /\*\*How sure:\*\* .* · driver fidelity: autocannon reached 97% of wrk on node-http · ping\.\n/);
  assert.match(
    EXPORTERS.terminal.render({ ...s, runs }, { width: 1000, details: true }),
    /How sure: .*driver fidelity: autocannon reached 97% of wrk/,
  );
});

test("how sure: the fidelity is the overview's run's, not a newer run's", () => {
  const s = reportSnapshot();
  // A newer run of another profile (its own tables, not the overview's), like a pipelined run after a bake-off.
  const newer = {
    meta: makeMeta({ runId: 'r9', startedAt: '2099-01-01T00:00:00.000Z' }),
    cells: ['node-http', 'fastify'].map((label) =>
      makeCell({
        runId: 'r9',
        label,
        scenario: 'ping',
        profile: 'pipelined',
        driver: 'autocannon',
        trials: five(9_000),
      }),
    ),
  };
  const runs = [...s.runs, newer].map((r) => ({
    ...r,
    meta: { ...r.meta, fidelity: { status: 'ok', summary: `fidelity of ${r.meta.runId}.` } as any },
  }));
  const view = buildView({ ...s, runs }, { now: NOW });
  const overviewRuns = new Set(view.winners.map((w) => view.tables.find((t) => t.id === w.tableId)?.runId));
  assert.equal(overviewRuns.size, 1, 'the overview comes from one run');
  const [run] = [...overviewRuns];
  assert.ok(runs.length > 1 && runs.at(-1)!.meta.runId !== run, 'a newer run than the overview has a fidelity too');
  assert.match(view.certainty, new RegExp(`driver fidelity: fidelity of ${run}\\.`));
});

test('the overview: one "% of baseline" matrix per baseline family, rows ordered within each (Markdown, HTML, terminal)', () => {
  const s = reportSnapshot();
  const gql = (label: string, x: number) =>
    makeCell({ runId: 'r2', scenario: 'graphql-ping', label, trials: five(4_000 * x) });
  const runs = s.runs.map((r) =>
    r.meta.runId === 'r2'
      ? {
          ...r,
          cells: [
            ...r.cells,
            gql('postgraphile-express', 1),
            gql('nestjs-graphql-mercurius', 2.4),
            gql('nestjs-graphql-apollo', 0.6),
          ],
        }
      : r,
  );
  const v = buildView({ ...s, runs }, { now: NOW });
  assert.deepEqual(
    v.matrix.families.map((f) => [f.baseline, f.scenarios]),
    [
      ['node-http', ['ping', 'json', 'echo', 'users', 'post']],
      ['postgraphile-express', ['graphql-ping']],
    ],
  );
  const [rest, graphql] = v.matrix.families;
  // Within the GraphQL family mercurius (240%) leads; it is no row of the REST family, which node-http leads.
  assert.deepEqual(graphql!.contenders, ['nestjs-graphql-mercurius', 'postgraphile-express', 'nestjs-graphql-apollo']);
  assert.ok(!rest!.contenders.includes('nestjs-graphql-mercurius'));
  assert.equal(rest!.contenders[0], 'node-http');
  const md = EXPORTERS.md.render({ ...s, runs }, { now: NOW });
  assert.match(md, /^\| % of `node-http` \| ping \| json \| echo \| users \| post \|$/m);
  assert.match(
    md,
    /^\| % of `postgraphile-express` \| graphql-ping \|$\n^\|---\|---:\|$\n^\| `nestjs-graphql-mercurius` \| \*\*240%/m,
  );
  const html = EXPORTERS.html.render({ ...s, runs }, { now: NOW });
  assert.equal((html.match(/<table class="heatmap" data-baseline="/g) ?? []).length, 2);
  assert.match(
    html,
    /<table class="heatmap" data-baseline="postgraphile-express"[^>]*><caption>% of <code>postgraphile-express<\/code><\/caption>/,
  );
  const term = EXPORTERS.terminal.render({ ...s, runs }, { now: NOW, width: 120, details: true });
  assert.deepEqual(
    term
      .split('\n')
      .filter((l) => l.startsWith('  % of '))
      .map((l) => l.split(' (')[0]?.replace(/ in requests per CPU-second$| in solo requests\/s$/, '')),
    ['  % of node-http', '  % of postgraphile-express'],
  );
});

test('a new contender joins the bake-off: after a one-contender run the overview keeps the bake-off tables, the newcomer a marked row', () => {
  const s = joinedSnapshot();
  const v = buildView(s, { now: NOW });
  // The overview: every scenario from the bake-off run r2, one profile (quick), not the stress run r4.
  assert.equal(v.matrix.profile, 'quick');
  assert.deepEqual(
    v.winners.map((w) => [w.scenario, w.profile, v.tables.find((t) => t.id === w.tableId)?.runId]),
    [
      ['ping', 'quick', 'r2'],
      ['json', 'quick', 'r2'],
      ['echo', 'quick', 'r2'],
      ['users', 'quick', 'r2'],
      ['post', 'quick', 'r2'],
    ],
  );
  // newbie: a row of the ping and json tables and of the matrix, marked with its run, by its ratio to r3's node-http, not ranked.
  const ping = v.tables.find((t) => t.scenario === 'ping' && t.profile === 'quick' && t.nodeMajor === 24)!;
  const row = ping.rows.find((r) => r.label === 'newbie')!;
  assert.ok(row.otherRun && row.runId === 'r3' && row.rank === null);
  const cell = v.matrix.cells.ping?.newbie;
  assert.deepEqual([cell?.runId, cell?.rank, cell?.flags], ['r3', null, ['‡']]);
  assert.ok(Math.abs((cell?.ratio?.figure ?? 0) - 0.6) < 1e-9, 'the ratio to its own run’s baseline');
  assert.ok(v.matrix.families[0]!.contenders.includes('newbie'));
  assert.match(
    v.matrix.joinedNote ?? '',
    /`newbie` \(run `r3`: ping, json\).*not ranked\. To rank them.*`npx just bake-off`/,
  );
  const md = EXPORTERS.md.render(s, { now: NOW });
  assert.match(md, /^\| `newbie` \| 60% \(\d\d–\d\d\) ‡ \| 60% \(\d\d–\d\d\) ‡ \|/m);
  assert.match(md, /^‡ measured in another run than its scenario's table \(`r2`\): `newbie` \(run `r3`: ping, json\)/m);
  const term = EXPORTERS.terminal.render(s, { now: NOW, width: 100, details: true });
  assert.match(term, /^ {2}newbie\s+60 \(\d\d–\d\d\)‡\s+60 \(\d\d–\d\d\)‡/m);
  assert.match(term, /‡ measured in another run than its scenario's table \(r2\): newbie \(run r3: ping, json\)/);
  const overview = EXPORTERS.terminal.render(s, { now: NOW, width: 100 });
  assert.doesNotMatch(overview.slice(0, overview.indexOf('Findings:')), /stress/, 'one profile on the first screen');
  assert.match(
    overview,
    /‡ measured in another run than its scenario's table \(r2\): newbie/,
    'the overview says who is left out',
  );
});

test('a table’s resolution line names its model’s units (rounds or server processes) and prints df to one decimal', () => {
  const model = { sigma: 0.0312, df: 22.153846153846153, rounds: 3, mdd: { pair: 0.09, baseline: 0.09 } };
  assert.equal(
    resolutionOf({ baseline: 'node-http', model: { ...model, unit: 'process' } }),
    'Resolves 9.0% between two rows and 9.0% against `node-http` (90% power, 5% two-sided; noise σ 0.031 per server process (the mean of its rounds), 3 processes per row, df 22.2).',
  );
  assert.match(
    resolutionOf({ baseline: 'node-http', model: { ...model, df: 40, rounds: 5, unit: 'round' } }) ?? '',
    /noise σ 0\.031 per round, 5 rounds per row, df 40\)\.$/,
  );
  assert.equal(resolutionOf({ baseline: 'node-http', model: null }), null);
});
