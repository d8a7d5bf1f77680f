// results/leaderboard.html: rendered from a real smoke run, opened in headless Chromium
// (Debian's chromium through playwright-core): the charts draw, the filters change what is
// shown, the page logs no errors, and a screenshot lands in test-output/leaderboard.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { readAllResults, type CellResult, type RunMeta } from '../harness/store/results.ts';
import { renderHtml } from '../harness/report/html.ts';
import { ROOT, runCli, tmpDir } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const SCENARIOS = ['ping', 'json', 'echo', 'users', 'post', 'fanout'];
const PROFILES = ['smoke', 'quick', 'nexus-report', 'standard', 'stress'];
const OUT = path.join(ROOT, 'test-output');

/**
 * A contenders folder holding copies of node-http and fastify only (their dependencies resolve
 * through a node_modules link to the root's), so the run does not depend on every other
 * contender's manifest being valid.
 */
function twoContenders(): string {
  const dir = tmpDir('html-contenders');
  for (const name of ['node-http', 'fastify']) {
    fs.cpSync(path.join(ROOT, 'contenders', name), path.join(dir, name), {
      recursive: true,
      filter: (src) => !src.includes(`${path.sep}node_modules`),
    });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

/** The same cells as measured in a `quick` run of 5 trials with resource sampling (synthetic figures). */
function withStatsAndResources(cells: CellResult[]): CellResult[] {
  return cells.map((c, i) => {
    const q = structuredClone(c);
    const r = q.load!.requestsPerSec.mean;
    const l = q.load!.latencyMs;
    q.profile = 'quick';
    q.cellId = `${q.cellId}-quick`;
    q.stats = {
      trials: 5,
      trialRps: [r * 0.97, r, r * 1.02, r * 0.99, r * 1.03],
      rps: { median: r, ci95: [r * 0.97, r * 1.025], method: 'bootstrap over trials' },
      latencyMs: {
        p50: l.p50,
        p75: (l.p50 + l.p90) / 2,
        p90: l.p90,
        p95: (l.p90 + l.p99) / 2,
        p99: l.p99,
        p999: (l.p99 + l.max) / 2,
        max: l.max,
      },
      spread: 0.06,
      noisy: false,
    };
    q.resources = {
      server: {
        cpuPctAvg: 85 + i,
        cpuPctPeak: 99,
        rssBytesAvg: (70 + 5 * i) * 2 ** 20,
        rssBytesPeak: (80 + 5 * i) * 2 ** 20,
        rssSlopeBytesPerS: 0,
        samples: 20,
        pinnedCores: 1,
      },
      client: { cpuPctAvg: 60, cores: 1 },
      rpsPerCpuSecond: r / 0.9,
      clientBound: false,
    };
    return q;
  });
}

test('renderHtml: one self-contained page; optional stats and resources rendered or omitted', () => {
  const base = {
    schemaVersion: 1,
    runId: 'r1',
    variant: null,
    tags: {},
    driver: 'autocannon',
    profile: 'quick',
    node: { version: 'v24.0.0', major: 24 },
    verification: { level: 'pass', reasons: [] },
    startupMs: 100,
    overheadMs: null,
    target: { kind: 'local', url: null },
    failure: null,
    cpuPlan: { pinned: false, server: null, client: null, services: null, allowedCores: [0], note: 'unpinned' },
    logFile: null,
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:01.000Z',
  };
  const load = (rps: number) => ({
    driver: 'autocannon',
    requestsPerSec: { mean: rps, stddev: 1, samples: [rps - 10, rps, rps + 10] },
    latencyMs: { mean: 1, p50: 1, p90: 2, p99: 3, max: 9 },
    latencyHistogramUs: null,
    requests: { total: rps * 3, sent: rps * 3 },
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    bytes: 1,
    durationS: 3,
    bodyChecks: { sampled: 1, mismatched: 0 },
    driverCpuMs: null,
    profile: { name: 'quick' },
  });
  const cells = [
    {
      ...base,
      cellId: 'a',
      contender: 'node-http',
      label: 'node-http',
      displayName: 'node',
      scenario: 'json',
      status: 'ok',
      load: load(1000),
    },
    {
      ...base,
      cellId: 'b',
      contender: 'fastify',
      label: 'fastify',
      displayName: 'fastify',
      scenario: 'json',
      status: 'ok',
      load: load(1200),
    },
    {
      ...base,
      cellId: 'c',
      contender: 'express',
      label: 'express',
      displayName: 'express',
      scenario: 'json',
      status: 'crashed',
      load: null,
      failure: { reason: 'server exited </script><script>alert(1)</script>', logTail: 'boom </script>' },
    },
  ] as unknown as CellResult[];
  const run = {
    schemaVersion: 1,
    runId: 'r1',
    startedAt: base.startedAt,
    finishedAt: base.finishedAt,
    state: 'complete',
    command: [],
    profile: 'quick',
    machine: { cpuModel: 'Test CPU', cores: 2, memoryBytes: 2 ** 33, os: 'Linux 6', arch: 'x64' },
    node: { version: 'v24.0.0', execPath: 'node' },
    git: { commit: 'abcdef1234567890', dirty: false },
    cpuPlan: base.cpuPlan,
    upstreamDelayMs: 0,
    database: null,
    nodes: [],
    packages: {},
  } as unknown as RunMeta;

  const plain = renderHtml(cells, [run], SCENARIOS, PROFILES);
  assert.match(plain, /^<!doctype html>/);
  assert.doesNotMatch(plain, /<script[^>]+src=|<link[^>]+href=|@import/i, 'nothing is loaded from elsewhere');
  assert.ok(plain.length > 500_000, 'the chart library is inlined');
  assert.equal((plain.match(/<\/script>/gi) ?? []).length, 3, 'a failure reason cannot close a <script> element');
  assert.doesNotMatch(plain, /<script>alert/);
  for (const fact of [
    'Test CPU',
    '8.0 GiB',
    'Linux 6 (x64)',
    'v24.0.0',
    'abcdef1234',
    'unpinned',
    'Seed claims',
    'Issues found',
    'crashed under load',
  ])
    assert.ok(plain.includes(fact), fact);
  assert.doesNotMatch(plain, /data-chart="cpu"/, 'no resource charts without resources');
  assert.match(plain, /data-chart="rps"/);
  assert.match(plain, /data-chart="latency"/);

  const rich = withStatsAndResources(cells.filter((c) => c.status === 'ok'));
  const page = renderHtml(rich, [run], SCENARIOS, PROFILES);
  assert.match(page, /data-chart="cpu"/);
  assert.match(page, /data-chart="rss"/);
  assert.match(page, /server CPU avg \(%\)/);
  const data = JSON.parse(page.match(/<script type="application\/json" id="bench-data">(.*?)<\/script>/s)![1]);
  const fastify = data.groups[0].rows.find((r: { label: string }) => r.label === 'fastify');
  assert.deepEqual(
    fastify.latency.map((p: [string, number]) => p[0]),
    ['p50', 'p75', 'p90', 'p95', 'p99', 'p99.9', 'max'],
  );
  assert.ok(fastify.ci[0] < fastify.rps && fastify.rps < fastify.ci[1]);
  assert.ok(fastify.cpuAvg > 0 && fastify.rssPeakMiB > 0);

  assert.match(renderHtml([], [], SCENARIOS, PROFILES), /No results yet/);
});

test('leaderboard.html in headless Chromium: charts, filters, no console errors, screenshot', {
  timeout: 300_000,
}, async () => {
  assert.ok(
    fs.existsSync(CHROMIUM),
    `${CHROMIUM} is missing: install Debian's chromium with \`apt-get update && apt-get install -y chromium\` (CI's .ci/run installs it)`,
  );

  const results = tmpDir('html');
  const r = await runCli([
    '--results-dir',
    results,
    '--contenders-dir',
    twoContenders(),
    'bench',
    'node-http',
    'fastify',
    '--profile',
    'smoke',
    '--scenario',
    'json,echo',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const { runs, cells } = readAllResults(results);
  assert.equal(
    cells.filter((c) => c.status === 'ok').length,
    4,
    JSON.stringify(cells.map((c) => [c.cellId, c.status, c.failure?.reason])),
  );

  fs.mkdirSync(OUT, { recursive: true });
  const file = path.join(OUT, 'leaderboard.html');
  fs.writeFileSync(file, renderHtml(cells, runs, SCENARIOS, PROFILES));
  const richFile = path.join(OUT, 'leaderboard-stats.html');
  // Beside them the same cells without the optional fields (as older results have): both render.
  const bare = cells.map((c) => ({ ...c, stats: undefined, resources: undefined }));
  fs.writeFileSync(richFile, renderHtml([...bare, ...withStatsAndResources(cells)], runs, SCENARIOS, PROFILES));
  const kinds = (cs: CellResult[]) => ['rps', 'latency', ...(cs.some((c) => c.resources) ? ['cpu', 'rss'] : [])];

  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bakeoff-chromium-'));
  const browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const errors: string[] = [];
    const requests: string[] = [];
    const open = async (f: string): Promise<Page> => {
      const page = await browser.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
      page.on('request', (q) => {
        if (!q.url().startsWith('file:')) requests.push(q.url());
      });
      await page.goto(pathToFileURL(f).href);
      await page.waitForSelector('body[data-ready="1"]', { timeout: 20_000 });
      return page;
    };
    /** Visible groups: their titles, and per chart its SVG's size and how many shapes it drew. */
    const visible = (page: Page) =>
      page.$$eval('section.group:not(.hidden)', (sections) =>
        sections.map((s) => ({
          title: s.querySelector('h3')!.textContent!,
          charts: [...s.querySelectorAll('.chart')].map((c) => {
            const svg = c.querySelector('svg');
            const box = svg?.getBoundingClientRect();
            return {
              kind: (c as HTMLElement).dataset.chart!,
              w: box?.width ?? 0,
              h: box?.height ?? 0,
              shapes: svg ? svg.querySelectorAll('path, rect, circle, line, polyline').length : 0,
            };
          }),
          rows: [...s.querySelectorAll('table.board tbody tr')].length,
        })),
      );

    const page = await open(file);
    let shown = await visible(page);
    assert.deepEqual(
      shown.map((g) => g.title),
      ['json · smoke · autocannon · Node 24', 'echo · smoke · autocannon · Node 24'],
    );
    for (const g of shown) {
      assert.deepEqual(
        g.charts.map((c) => c.kind),
        kinds(cells),
        g.title,
      );
      for (const c of g.charts)
        assert.ok(
          c.w > 200 && c.h > 150 && c.shapes > 10,
          `${g.title} ${c.kind} chart drew nothing: ${JSON.stringify(c)}`,
        );
      assert.equal(g.rows, 2);
    }
    assert.match((await page.textContent('#machine')) ?? '', /cores/i);
    assert.ok((await page.isVisible('#issues')) && (await page.isVisible('#claims')));

    // The scenario filter: only echo, then only json; the other group is hidden and its charts drawn when shown.
    await page.selectOption('#f-scenario', 'echo');
    shown = await visible(page);
    assert.deepEqual(
      shown.map((g) => g.title),
      ['echo · smoke · autocannon · Node 24'],
    );
    assert.equal(await page.textContent('#shown'), '1 of 2 result tables shown');
    await page.selectOption('#f-scenario', 'json');
    shown = await visible(page);
    assert.deepEqual(
      shown.map((g) => g.title),
      ['json · smoke · autocannon · Node 24'],
    );
    assert.match(page.url(), /#scenario=json$/, 'the filter is kept in the URL');
    await page.selectOption('#f-scenario', '');
    assert.equal((await visible(page)).length, 2);
    await page.screenshot({ path: path.join(OUT, 'leaderboard.png'), fullPage: true });

    // With trials and resource samples: CI whiskers, seven percentiles, CPU and RSS charts; the profile filter.
    const rich = await open(richFile);
    await rich.selectOption('#f-profile', 'quick');
    shown = await visible(rich);
    assert.deepEqual(
      shown.map((g) => g.title),
      ['json · quick · autocannon · Node 24', 'echo · quick · autocannon · Node 24'],
    );
    for (const g of shown) {
      assert.deepEqual(
        g.charts.map((c) => c.kind),
        ['rps', 'latency', 'cpu', 'rss'],
        g.title,
      );
      for (const c of g.charts)
        assert.ok(
          c.w > 200 && c.h > 150 && c.shapes > 10,
          `${g.title} ${c.kind} chart drew nothing: ${JSON.stringify(c)}`,
        );
    }
    assert.match((await rich.textContent('section.group:not(.hidden) table.board')) ?? '', /95% CI/);
    await rich.selectOption('#f-profile', 'smoke');
    shown = await visible(rich);
    assert.deepEqual(
      shown.map((g) => g.title),
      ['json · smoke · autocannon · Node 24', 'echo · smoke · autocannon · Node 24'],
    );
    for (const g of shown) {
      assert.deepEqual(
        g.charts.map((c) => c.kind),
        ['rps', 'latency'],
        `${g.title}: no CPU or RSS chart without resources`,
      );
      for (const c of g.charts)
        assert.ok(
          c.w > 200 && c.h > 150 && c.shapes > 10,
          `${g.title} ${c.kind} chart drew nothing: ${JSON.stringify(c)}`,
        );
    }
    await rich.selectOption('#f-profile', '');
    await rich.selectOption('#f-node', '24');
    await rich.selectOption('#f-driver', 'autocannon');
    assert.equal((await visible(rich)).length, 4);
    await rich.screenshot({ path: path.join(OUT, 'leaderboard-stats.png'), fullPage: true });

    assert.deepEqual(errors, [], 'the page logged errors');
    assert.deepEqual(requests, [], 'the page loaded something from outside its file');
  } finally {
    await browser.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
});
