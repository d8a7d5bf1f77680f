// The terminal report as a user reads it (issues 26, 48): the answer first (one line per
// scenario, one confidence line, where the details are) in at most 40 lines, fitted to 80, 100 and
// 120 columns with no line longer than the width, names cut with "…" and tables never wrapped;
// how sure, the winners, one "% of baseline" matrix per baseline family and every table only with --details;
// colour from the TTY, NO_COLOR and FORCE_COLOR (terminalSettings), through the real CLI too.
// Inputs: the report fixtures (test/report-fixture.ts, test/report-capacity-fixture.ts) and the
// committed results (skipped in a clone without them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { EXPORTERS } from '../../harness/report/exporters/exporter-registry.ts';
import { terminalSettings } from '../../harness/report/exporters/terminal.ts';
import { fitTable, matrixBlocks, stripAnsi, truncate, wrap } from '../../harness/report/term-layout.ts';
import { readSnapshot, wroteText } from '../../harness/cli/report.ts';
import { capacitySnapshot } from '../report-capacity-fixture.ts';
import { reportSnapshot } from '../report-fixture.ts';
import { ROOT, runCli, tmpDir } from '../helpers.ts';
import { openRun, reportFiles, runReportDir } from '../../harness/store/runs.ts';

const NOW = new Date('2026-11-22T00:00:00Z');
const ESC = '\u001b[';
const cols = (l: string) => [...stripAnsi(l)].length;
const committed = readSnapshot(path.join(ROOT, 'results'), path.join(ROOT, 'scenarios')).snapshot;

for (const width of [80, 100, 120])
  test(`at ${width} columns: no line is longer, the answer comes first in at most 40 lines, --details adds the arithmetic and the tables`, () => {
    const inputs = [reportSnapshot(), capacitySnapshot(), ...(committed.runs.length ? [committed] : [])];
    for (const s of inputs)
      for (const details of [false, true]) {
        const text = EXPORTERS.terminal.render(s, { now: NOW, width, details, color: true });
        const lines = text.trimEnd().split('\n');
        const long = lines.filter((l) => cols(l) > width);
        assert.deepEqual(long, [], `lines over ${width} columns (details ${details})`);
        assert.match(stripAnsi(lines[0] ?? ''), /^Overview \(.*ranked by /);
        const confidence = lines.findIndex((l) => stripAnsi(l).startsWith('  Resolution: '));
        const winners = lines.findIndex((l) => stripAnsi(l).startsWith('  Rank 1 of each table'));
        const matrix = lines.findIndex((l) => stripAnsi(l).startsWith('  % of '));
        const howSure = lines.findIndex((l) => stripAnsi(l).startsWith('  How sure: '));
        const firstTable = lines.findIndex((l) => / · run \S+/.test(stripAnsi(l)));
        assert.ok(confidence > 1, 'the scenario lines, then the confidence line');
        if (!details) {
          assert.ok(lines.length <= 40, `${lines.length} lines at ${width} columns`);
          assert.deepEqual([winners, matrix, howSure, firstTable], [-1, -1, -1, -1], 'no arithmetic without --details');
          assert.match(stripAnsi(lines.at(-1) ?? ''), /Details: --details/);
        } else {
          assert.ok(howSure > confidence && winners > howSure && matrix > winners, 'how sure, winners, matrix');
          assert.ok(firstTable > matrix, 'the tables come after the overview');
        }
      }
  });

test('the committed results: one matrix per baseline family with --details, and the overview fits in 100 columns', (t) => {
  if (!committed.runs.length) return t.skip('no committed results');
  const text = EXPORTERS.terminal.render(committed, { now: NOW, details: true });
  const heads = text.split('\n').filter((l) => l.startsWith('  % of '));
  assert.deepEqual(
    heads.map((l) => l.split(' (')[0]?.replace(/ in requests per CPU-second$/, '')),
    ['  % of node-http', '  % of postgraphile-express'],
  );
  // The REST matrix's rows are ordered by the REST scenarios only: node-http (the baseline of every REST scenario) is first.
  const rest = text.slice(text.indexOf('  % of node-http'), text.indexOf('  % of postgraphile-express'));
  const lines = rest.split('\n');
  assert.match(lines[lines.findIndex((l) => l.startsWith('  contender')) + 1] ?? '', /^ {2}node-http\s/);
  const overview = EXPORTERS.terminal.render(committed, { now: NOW }).trimEnd().split('\n');
  assert.ok(
    overview.every((l) => cols(l) <= 100),
    'default width 100',
  );
  assert.ok(overview.length <= 40, `${overview.length} lines`);
});

test('the leaderboard\'s closing "wrote …" fits 80 and 100 columns for the committed report and a one-run report', () => {
  const results = path.join(process.cwd(), 'results');
  const id = committed.runs.at(-1)?.meta.runId ?? '2026-01-01T00-00-00Z-abcd';
  for (const width of [80, 100])
    for (const files of [reportFiles(results), reportFiles(runReportDir(results, id))]) {
      const text = wroteText(files, width);
      assert.ok(
        text.split('\n').every((l) => cols(l) <= width),
        `${width}: ${text}`,
      );
      assert.match(text, /^wrote results\/\S*LEADERBOARD\.md(\n {2}| )and results\/\S*leaderboard\.html\n$/);
    }
  assert.equal(
    wroteText({ markdown: '/elsewhere/a.md', html: '/elsewhere/a.html' }, 100),
    'wrote /elsewhere/a.md and /elsewhere/a.html\n',
  );
});

test('names are cut with "…", in the middle for contender labels; prose wraps with a hanging indent', () => {
  assert.equal(truncate('nestjs-fastify-undici +interceptor', 20), 'nestjs-fastify-undi…');
  const a = truncate('nestjs-fastify-undici +interceptor', 26, 'middle');
  const b = truncate('nestjs-fastify-axios +interceptor', 26, 'middle');
  assert.equal([...a].length, 26);
  assert.notEqual(a, b, `${a} vs ${b}`);
  assert.deepEqual(wrap('one two three four five', 12, '  - ', '    '), [
    '  - one two',
    '    three',
    '    four',
    '    five',
  ]);
  const t = fitTable(
    [
      ['#', 'contender', 'requests/s', 'p99 ms', 'flags'],
      ['1', 'a-very-long-contender-name +variant', '12,345', '1.00', 'client-bound (lower bound)'],
    ],
    [
      { align: 'right' },
      { align: 'left', min: 12, cut: 'middle' },
      { align: 'right' },
      { align: 'right', drop: 1 },
      { align: 'left', min: 8 },
    ],
    40,
  );
  assert.ok(
    t.lines.every((l) => cols(l) <= 40),
    t.lines.join('\n'),
  );
  assert.equal(t.lines.length, 2, 'never wrapped');
  assert.match(t.lines[1] ?? '', /…/);
  const blocks = matrixBlocks(
    [
      ['contender', 'aaaaaaaaaa', 'bbbbbbbbbb', 'cccccccccc'],
      ['x', '1', '–', '3'],
      ['y', '–', '–', '6'],
    ],
    30,
  );
  assert.ok(
    blocks.every((l) => cols(l) <= 30),
    blocks.join('\n'),
  );
  assert.ok(blocks.includes(''), 'split into blocks');
  const blanks = blocks.filter((l) => l === '').length;
  assert.equal(blocks.filter((l) => l.startsWith('contender')).length, blanks + 1, 'the name column repeats');
  assert.ok(!blocks.slice(0, blocks.indexOf('')).some((l) => l.startsWith('y')), 'y has nothing in the first block');
});

test('colour: on for a TTY, off with NO_COLOR, forced by FORCE_COLOR; the width from the TTY, else $COLUMNS, else 100', () => {
  assert.deepEqual(terminalSettings({ isTTY: true, columns: 90 }, {}), { width: 90, color: true });
  assert.deepEqual(terminalSettings({ isTTY: true, columns: 90 }, { NO_COLOR: '1' }), { width: 90, color: false });
  assert.deepEqual(terminalSettings({ isTTY: true, columns: 90 }, { TERM: 'dumb' }), { width: 90, color: false });
  assert.deepEqual(terminalSettings({ isTTY: false }, {}), { width: 100, color: false });
  assert.deepEqual(terminalSettings({ isTTY: false }, { COLUMNS: '120', FORCE_COLOR: '1' }), {
    width: 120,
    color: true,
  });
  assert.deepEqual(terminalSettings({ isTTY: true, columns: 90 }, { FORCE_COLOR: '0' }).color, false);
  const s = reportSnapshot();
  assert.ok(!EXPORTERS.terminal.render(s, { color: false, details: true }).includes(ESC));
  assert.ok(EXPORTERS.terminal.render(s, { color: true }).includes(ESC));
});

test('the CLI: export --format terminal honours COLUMNS, NO_COLOR and FORCE_COLOR; --details and --summary only with their format', async () => {
  const dir = tmpDir('terminal');
  for (const run of reportSnapshot().runs) {
    const { schemaVersion: _v, runId, startedAt: _s, finishedAt: _f, state: _st, harnessPid: _p, ...init } = run.meta;
    const id = runId === 'r1' ? '2026-11-21T00-00-00Z-aaaa' : '2026-11-22T00-00-00Z-bbbb';
    const w = openRun(dir, init, id);
    for (const c of run.cells) w.writeCell({ ...c, runId: id });
    w.finish('complete');
  }
  const cli = (env: Record<string, string>, ...args: string[]) =>
    runCli(['--results-dir', dir, 'export', '--format', 'terminal', ...args], env);
  const forced = await cli({ FORCE_COLOR: '1', COLUMNS: '80', NO_COLOR: '' }, '--details');
  assert.equal(forced.code, 0, forced.stderr);
  assert.ok(forced.stdout.includes(ESC), 'FORCE_COLOR gives escape codes');
  assert.ok(
    forced.stdout.split('\n').every((l) => cols(l) <= 80),
    'COLUMNS=80',
  );
  assert.match(stripAnsi(forced.stdout), /ping · quick · autocannon · Node 24/);
  const plain = await cli({ NO_COLOR: '1', FORCE_COLOR: '1', COLUMNS: '120' });
  assert.equal(plain.code, 0, plain.stderr);
  assert.ok(!plain.stdout.includes(ESC), 'NO_COLOR wins');
  assert.doesNotMatch(plain.stdout, /ping · quick · autocannon/, 'no table without --details');
  const bad = await runCli(['--results-dir', dir, 'export', '--format', 'json', '--details']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--details is for the terminal report: use it with --format terminal/);
  const bad2 = await runCli(['--results-dir', dir, 'export', '--format', 'csv', '--summary']);
  assert.equal(bad2.code, 2);
  assert.match(bad2.stderr, /--summary is a Markdown table: use it with --format md/);
});
