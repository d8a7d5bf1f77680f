// The how-sure line (issue 26): this machine's resolution as the newest self-test record measured
// it (store/selftest-store.ts, report/resolution-text.ts) beside the run's own median minimum
// detectable difference, in the terminal, Markdown and HTML alike; "self-test: not run" without a
// record; and "noisy" said once per table (the matrix column, the table's notes), never per cell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readSnapshot } from '../../harness/cli/report.ts';
import { EXPORTERS } from '../../harness/report/exporters/exporter-registry.ts';
import { ageText, ciText, SELFTEST_NOT_RUN, selftestText } from '../../harness/report/resolution-text.ts';
import type { ReportSnapshot } from '../../harness/report/snapshot.ts';
import { buildView } from '../../harness/report/view-build.ts';
import { readNewestSelftest, type SelftestSummary } from '../../harness/store/selftest-store.ts';
import { joinedSnapshot, reportSnapshot } from '../report-fixture.ts';
import { ROOT, tmpDir } from '../helpers.ts';

const NOW = new Date('2026-11-25T06:40:38.979Z');

/** A version-2 self-test record as cli/selftest.ts writes it (the fields the report reads, and others). */
function record(at: string, main: string, fd = 0.14666666666666667) {
  return {
    kind: 'selftest',
    version: 2,
    at,
    design: 'in-run copies',
    runs: { pilot: 'p', main },
    falseDifference: { pairs: 225, hits: 33, rate: fd, ci95: [0.10315860253761543, 0.19976440323450131] },
    power10: { pairs: 150, hits: 140, rate: 0.9333333333333333, ci95: [0.8808, 0.9676] },
    power5: { pairs: 150, hits: 87, rate: 0.58 },
    medianMddPair: 0.1013191418427617,
  };
}

const SELF: SelftestSummary = {
  file: 'results/selftest/x.json',
  at: '2026-11-22T04:40:38.979Z',
  mainRun: '2026-11-22T04-23-05Z-1184',
  falseDifference: { rate: 0.1467, ci95: [0.1032, 0.1998], pairs: 225 },
  power10: { rate: 0.9333, ci95: [0.88, 0.97], pairs: 150 },
  measured10: null,
  medianMdd: 0.1013,
  machine: null,
};

test('selftest store: the newest version-2 record by `at`; first-design records skipped silently, a bad one with a warning', () => {
  const results = tmpDir('selftest-store');
  const dir = path.join(results, 'selftest');
  fs.mkdirSync(dir, { recursive: true });
  const put = (name: string, data: unknown) => fs.writeFileSync(path.join(dir, name), JSON.stringify(data));
  put('a-old-design.json', { kind: 'selftest', at: '2026-12-01T00:00:00Z', falseChange: 0.1 });
  put('b.json', record('2026-11-24T06:54:06.193Z', 'run-b'));
  put('c.json', record('2026-11-25T04:40:38.979Z', 'run-c', 0.05));
  put('d-bad.json', { ...record('2026-11-26T00:00:00Z', 'run-d'), falseDifference: { rate: 7 } });
  put('e-garbage.json', '{');
  fs.writeFileSync(path.join(dir, 'f-truncated.json'), '{"version": 2, "at"');
  const r = readNewestSelftest(results);
  assert.equal(r.selftest?.mainRun, 'run-c');
  assert.equal(r.selftest?.falseDifference.rate, 0.05);
  assert.deepEqual(r.selftest?.power10.ci95, [0.8808, 0.9676]);
  assert.equal(r.selftest?.medianMdd, 0.1013191418427617);
  assert.equal(r.selftest?.machine, null, 'no run folder: no host');
  assert.equal(r.warnings.length, 3, r.warnings.join('\n'));
  assert.ok(r.warnings.some((w) => w.includes('e-garbage.json')));
  assert.ok(r.warnings.some((w) => w.includes('d-bad.json')));
  assert.ok(r.warnings.some((w) => w.includes('f-truncated.json')));
  assert.deepEqual(readNewestSelftest(tmpDir('selftest-none')), { selftest: null, warnings: [] });
});

test('the committed results: the how-sure line names the newest self-test record (its main run and age)', () => {
  const { snapshot } = readSnapshot(path.join(ROOT, 'results'), path.join(ROOT, 'scenarios'));
  const files = fs.readdirSync(path.join(ROOT, 'results', 'selftest')).filter((f) => f.endsWith('.json'));
  const newest = files
    .map((f) => JSON.parse(fs.readFileSync(path.join(ROOT, 'results', 'selftest', f), 'utf8')))
    .filter((j) => j.version >= 2)
    .sort((a, b) => a.at.localeCompare(b.at))
    .at(-1);
  assert.ok(newest, 'a committed version-2 self-test record');
  assert.equal(snapshot.selftest?.mainRun, newest.runs.main);
  const mainMeta = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'results', 'selftest', 'runs', newest.runs.main, 'meta.json'), 'utf8'),
  );
  assert.deepEqual(snapshot.selftest?.machine, mainMeta.machine, 'the machine of its main run');
  const v = buildView(snapshot, { now: new Date(Date.parse(newest.at) + 3 * 86_400_000) });
  // The overview's tables may come from another machine than the self-test's run: the line then says so.
  assert.match(
    v.certainty,
    new RegExp(`^self-test \`${newest.runs.main}\` \\(3 days old(, on another machine than these tables: .+?)?\\): `),
  );
  assert.match(v.certainty, / · these tables: median minimum detectable difference \d+(\.\d)?% between two rows/);
});

test('the self-test text: rates, intervals, pairs, power, MDD and age; "not run" without a record', () => {
  assert.equal(
    selftestText(SELF, NOW),
    'self-test `2026-11-22T04-23-05Z-1184` (3 days old): 15% false differences between identical servers (95% CI 10–20% over 225 pairs taken as independent, though they share copies and tables (too narrow); target ≤ 5%), 93% power at a 10% difference, median minimum detectable difference 10%',
  );
  assert.match(
    selftestText({ ...SELF, falseDifference: { rate: 0.0489, ci95: [0.0246, 0.0858], pairs: 225 } }, NOW),
    /4\.9% false differences between identical servers \(95% CI 2\.4–8\.6% over 225 pairs taken as independent/,
  );
  assert.match(
    selftestText({ ...SELF, measured10: 0.1522 }, NOW),
    /93% power at a 10% difference \(measured 15%\), median/,
    'the difference the planted copies really had',
  );
  assert.equal(selftestText(null, NOW), SELFTEST_NOT_RUN);
  // With the interval that counts the pairs' dependence: that one, and whether ≤ 8% is certified.
  assert.equal(ciText([0, 0.14]), '0.0–14%', 'no binary error rounds 14% up to 15%');
  const clustered = { ci95: [0, 0.14] as [number, number], effectivePairs: 26.3, runsToCertify8: 7 };
  assert.match(
    selftestText({ ...SELF, falseDifference: { rate: 0.04, ci95: [0.018, 0.075], pairs: 225, clustered } }, NOW),
    /4\.0% false differences between identical servers \(95% CI 0\.0–14% over 225 pairs that share copies and tables \(worth at least about 26 independent ones; a conservative cluster bootstrap\); target ≤ 5%; upper end ≤ 8%: not met \(about 7 runs of this design would certify it at this rate\)\)/,
  );
  assert.match(
    selftestText(
      {
        ...SELF,
        falseDifference: {
          rate: 0.02,
          ci95: [0.01, 0.04],
          pairs: 900,
          clustered: { ...clustered, ci95: [0.005, 0.07] },
        },
      },
      NOW,
    ),
    /upper end ≤ 8%: met\)/,
  );
  // The machine: named only when the tables beside it ran on another one (this VM's host changes by
  // day): another CPU name, or the same name on another kernel or CPU family (core/machine.ts).
  const epyc = { cpuModel: 'AMD EPYC 7B13', os: 'Linux 6.1', cores: 2 };
  const amd = { ...SELF, machine: epyc };
  assert.match(
    selftestText(amd, NOW, [{ cpuModel: 'Intel(R) Xeon(R) Processor @ 2.90GHz', os: 'Linux 6.1', cores: 2 }]),
    /^self-test `2026-11-22T04-23-05Z-1184` \(3 days old, on another machine than these tables: AMD EPYC 7B13 \(Linux 6\.1; no CPU identity recorded\)\): 15% false/,
  );
  assert.match(
    selftestText(amd, NOW, [{ ...epyc, os: 'Linux 6.2' }]),
    /on another machine than these tables/,
    'another kernel',
  );
  assert.match(
    selftestText(amd, NOW, [epyc, { cpuModel: 'Intel Xeon', os: 'Linux 6.1', cores: 2 }]),
    /^self-test `[^`]+` \(3 days old\): /,
  );
  assert.match(selftestText(amd, NOW), /^self-test `[^`]+` \(3 days old\): /, 'no tables: nothing to compare');
  assert.match(SELFTEST_NOT_RUN, /self-test: not run \(`npx just selftest`/);
  assert.deepEqual(
    [ageText(-5), ageText(35 * 60_000), ageText(5 * 3_600_000), ageText(50 * 3_600_000)],
    ['0 min', '35 min', '5 h', '2 days'],
  );
});

/** The fixture with the snapshot's self-test set as the reader would (undefined: not looked for). */
const withSelf = (s: SelftestSummary | null | undefined): ReportSnapshot => ({ ...reportSnapshot(), selftest: s });

test('terminal --details, Markdown and HTML carry the same how-sure line, self-test first; no record → "self-test: not run"; the overview its short form', () => {
  for (const [s, want] of [
    [
      SELF,
      /How sure:\** self-test `?2026-11-22T04-23-05Z-1184`? \(3 days old\): 15% false differences .* · these tables: median minimum detectable difference/,
    ],
    [
      null,
      /How sure:\** self-test: not run \(`?npx just selftest`?, ~35 min\) · no A\/A control in this run · these tables: median minimum/,
    ],
  ] as const) {
    const snap = withSelf(s);
    const term = EXPORTERS.terminal.render(snap, { now: NOW, width: 2000, color: false, details: true });
    const short = EXPORTERS.terminal.render(snap, { now: NOW, width: 2000, color: false });
    assert.match(
      short,
      s ? / · self-test: 15% false differences \(target ≤ 5%\), 3 days old\n/ : / · self-test: not run/,
    );
    const md = EXPORTERS.md.render(snap, { now: NOW });
    const html = EXPORTERS.html.render(snap, { now: NOW });
    assert.match(term.replace(/\n\s+/g, ' '), want);
    assert.match(md, want);
    const line = /<p class="certainty">([\s\S]*?)<\/p>/.exec(html)?.[1]?.replace(/<[^>]+>/g, '') ?? '';
    assert.match(line, want);
    assert.equal((md.match(/self-test/g) ?? []).length >= 1, true);
  }
  // Without a reader's answer (a snapshot built from cells alone) the line says nothing of a self-test.
  assert.doesNotMatch(buildView(withSelf(undefined), { now: NOW }).certainty, /self-test/);
});

test('"noisy" once per table: a mark on the scenario’s column and the table’s notes, no cell or row flag', () => {
  const snap = structuredClone(reportSnapshot()) as ReportSnapshot;
  const r2 = snap.runs.find((r) => r.meta.runId === 'r2');
  assert.ok(r2);
  const ping = r2.cells.filter((c) => c.scenario === 'ping' && ['express', 'hono'].includes(c.label));
  assert.equal(ping.length, 2);
  for (const c of ping) Object.assign(c.stats ?? {}, { noisy: true });
  const v = buildView(snap, { now: NOW });
  assert.deepEqual(v.matrix.noisy.ping, ['express', 'hono']);
  assert.deepEqual(v.matrix.noisy.json, []);
  // Counted over the overview's tables, as the median MDD is (5 of the fixture's 6 tables).
  assert.match(v.certainty, / · 1 of 5 tables of the overview noisy \(see their notes\) · /);
  const cells = Object.values(v.matrix.cells).flatMap((row) => Object.values(row));
  assert.ok(
    cells.every((c) => !c?.flags.includes('~')),
    'no matrix cell says noisy',
  );
  const table = v.tables.find((t) => t.scenario === 'ping' && t.runId === 'r2' && t.nodeMajor === 24);
  assert.ok(
    table?.rows.every((r) => !r.flags.includes('noisy')),
    'no row says noisy',
  );
  assert.equal(table?.notes.filter((n) => n.startsWith('noisy')).length, 1, 'the table says it once');
  const md = EXPORTERS.md.render(snap, { now: NOW });
  const matrix = md.slice(md.indexOf("**% of each scenario's baseline**"), md.indexOf('## Details'));
  assert.equal((matrix.match(/~/g) ?? []).length, 2, 'the legend and the ping column');
  assert.match(matrix, /\| % of `node-http` \| ping ~ \| json \|/);
  const term = EXPORTERS.terminal.render(snap, { now: NOW, width: 200, color: false, details: true });
  assert.match(term, /contender +ping ~ +json/);
  const html = EXPORTERS.html.render(snap, { now: NOW });
  const heat = html.slice(
    html.indexOf('<table class="heatmap"'),
    html.indexOf('</table>', html.indexOf('<table class="heatmap"')),
  );
  assert.equal((heat.match(/>~</g) ?? []).length, 1, 'one mark in the heatmap: the ping column');
  assert.match(heat, /title="noisy rows in this table: express, hono">~</);
});

test('how sure: the median MDD is the overview’s tables’, not a mix with other profiles’ tables (claims, matrix, stress runs)', () => {
  const s = joinedSnapshot(); // + run r4: ping in the stress profile, six rows
  const v = buildView(s, { now: new Date('2026-11-25T00:00:00Z') });
  const overviewIds = new Set(v.winners.map((w) => w.tableId));
  const mdds = v.tables
    .filter((t) => overviewIds.has(t.id) && t.mddPair !== null)
    .map((t) => t.mddPair as number)
    .sort((a, b) => a - b);
  assert.ok(
    v.tables.some((t) => t.profile === 'stress' && t.mddPair !== null),
    'a stress table with an MDD too',
  );
  const m =
    /median minimum detectable difference ([\d.]+)% between two rows \(90% power; (\d+) tables of the overview\)/.exec(
      v.certainty,
    );
  assert.ok(m, v.certainty);
  assert.equal(Number(m[2]), mdds.length);
  const med = (mdds[(mdds.length - 1) >> 1]! + mdds[mdds.length >> 1]!) / 2;
  assert.ok(Math.abs(Number(m[1]) - 100 * med) < 0.51, `${m[1]} vs ${100 * med}`);
});
