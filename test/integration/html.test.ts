// results/leaderboard.html opened in headless Chromium (Debian's chromium through
// playwright-core), driven as a reader would: with the keyboard, the contender filter and
// highlight, sortable tables, the table of contents, the compare view, a 390 px phone width and
// the print stylesheet. The fixture's 1366×768 screenshot of the first screen (the overview above
// the fold) is written to test-output/report-overview-fixture.png; the README's picture is the
// committed report's (`npx just screenshot`, checked in report-overview.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { chromiumPath } from '../../harness/drivers/tools.ts';
import { EXPORTERS } from '../../harness/report/exporters/exporter-registry.ts';
import { renderHtmlView } from '../../harness/report/exporters/html.ts';
import { buildView } from '../../harness/report/view-build.ts';
import { reportSnapshot } from '../report-fixture.ts';
import { capacitySnapshot } from '../report-capacity-fixture.ts';
import { ROOT } from '../helpers.ts';

/** `$CHROMIUM_PATH`, else Debian's /usr/bin/chromium (drivers/tools.ts). */
const CHROMIUM = chromiumPath();
/** Without a Chromium the browser tests are skipped with this reason (`npx just tools` installs Debian's as root). */
const NO_CHROMIUM = CHROMIUM
  ? false
  : "no Chromium: install Debian's with `apt-get update && apt-get install -y chromium` (or `npx just tools` as root), or set CHROMIUM_PATH";
const OUT = path.join(ROOT, 'test-output');
/** The fixture's own screenshot of its first screen (the README's picture is the committed report's). */
const SCREENSHOT = path.join(OUT, 'report-overview-fixture.png');
const ASSETS = path.join(ROOT, 'harness', 'report', 'exporters', 'html');

test('the page: one self-contained file from a template, a stylesheet and a script; nothing can break out of <script>', () => {
  const s = reportSnapshot();
  const evil = structuredClone(s);
  const broken = evil.runs[1]!.cells.find((c) => c.label === 'broken');
  assert.ok(broken);
  Object.assign(broken, { label: 'x</script><script>alert(1)</script>', contender: 'x' });
  const page = EXPORTERS.html.render(evil);
  assert.match(page, /^<!doctype html>/);
  assert.doesNotMatch(page, /<script[^>]+src=|<link[^>]+href=|@import/i, 'nothing is loaded from elsewhere');
  assert.ok(page.length > 500_000, 'the chart library is inlined');
  assert.equal((page.match(/<\/script>/gi) ?? []).length, 3, 'a label cannot close a <script> element');
  assert.doesNotMatch(page, /<script>alert/);
  assert.ok(page.includes(fs.readFileSync(path.join(ASSETS, 'page.css'), 'utf8').slice(0, 200)), 'page.css inlined');
  assert.ok(page.includes('// @ts-check'), 'page.js inlined');
  assert.doesNotMatch(page, /slot:|data-slot/, 'every template slot filled');
  // The first thing in <main> is the overview.
  const main = page.slice(page.indexOf('<main>'));
  assert.match(main.slice(0, 200), /<section id="overview"/);
  const empty = renderHtmlView(buildView({ runs: [], scenarios: s.scenarios }), '/* no charts */');
  assert.match(empty, /No results yet/);
});

async function withBrowser(fn: (ctx: BrowserContext) => Promise<void>): Promise<void> {
  assert.ok(CHROMIUM, NO_CHROMIUM || 'no Chromium');
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bakeoff-chromium-'));
  const ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1366, height: 768 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-sync',
    ],
  });
  try {
    await fn(ctx);
  } finally {
    await ctx.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
}

/** Opens the page and collects console errors and requests to anything but the file. */
async function open(ctx: BrowserContext, file: string, errors: string[]): Promise<Page> {
  const page = await ctx.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('request', (q) => {
    if (!q.url().startsWith('file:')) errors.push(`request: ${q.url()}`);
  });
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20_000 });
  return page;
}

/** The text of every <text> of a chart's SVG. */
const chartTexts = (page: Page, sel: string) =>
  page.$eval(sel, (el) => [...el.querySelectorAll('svg text')].map((t) => t.textContent ?? ''));

/** Visible labels of the rows of a table (by its data-label attribute). */
const rowLabels = (page: Page, sel: string) =>
  page.$$eval(`${sel} tbody tr:not(.hidden)`, (trs) => trs.map((tr) => (tr as HTMLElement).dataset.label ?? ''));

test('leaderboard.html in Chromium: overview above the fold, TOC, filter, highlight, sort, marks, scales, chips, matrix, compare, 390 px, print', {
  timeout: 240_000,
  skip: NO_CHROMIUM,
}, async () => {
  fs.mkdirSync(OUT, { recursive: true });
  const file = path.join(OUT, 'leaderboard.html');
  fs.writeFileSync(file, EXPORTERS.html.render(reportSnapshot(), { now: new Date('2026-11-22T01:00:00Z') }));
  const errors: string[] = [];
  await withBrowser(async (ctx) => {
    const page = await open(ctx, file, errors);

    // 1. The first screen is the answer: its lines and the confidence line end above the fold (how
    // sure, the rank rule and the winners table are folded under it).
    for (const sel of ['#overview ul.answer', '#overview p.confidence']) {
      const box = await page.locator(sel).boundingBox();
      assert.ok(box && box.y < 768 && box.y + box.height <= 768, `${sel} at ${JSON.stringify(box)}`);
    }
    assert.equal(await page.isVisible('#overview .certainty'), false, 'how sure is folded');
    assert.match(
      (await page.textContent('#overview .certainty')) ?? '',
      /How sure: no A\/A control in this run · median minimum detectable difference [\d.]+% between two rows \(90% power; \d+ tables( of the overview)?\) · 3–5 trials per cell/,
    );
    assert.match((await page.textContent('table.winners')) ?? '', /ping\s*node-http\s*fastify\s*tied/);
    const heat = await page.$$eval('table.heatmap tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')),
    );
    // Six contenders of run r2 and koa, measured only in r1: a row marked ‡ by its ratio to r1's node-http.
    assert.equal(heat.length, 7);
    assert.match(heat.find((r) => r[0] === 'koa')?.[1] ?? '', /^57% ‡5\d–5\d$/);
    assert.match(heat.find((r) => r[0] === 'express')?.[1] ?? '', /^45%4\d–4\d$/);
    assert.match(heat.find((r) => r[0] === 'fastify')?.[1] ?? '', /^9\d% ≥\d+–\d+$/);
    await page.screenshot({ path: SCREENSHOT });
    assert.ok(fs.statSync(SCREENSHOT).size < 400_000, 'the screenshot stays small');

    // 2. Table of contents: keyboard to the "Issues" link, Enter jumps there.
    await page.focus('nav.toc a[href="#findings"]');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.hash === '#findings');
    const issuesTop = await page.$eval('#findings', (el) => el.getBoundingClientRect().top);
    const navBottom = await page.$eval('nav.toc', (el) => el.getBoundingClientRect().bottom);
    assert.ok(
      issuesTop >= navBottom && issuesTop < 200,
      `#findings below the sticky contents bar (top ${issuesTop}, bar ${navBottom})`,
    );

    // 3. The folded blocks open (a closed <details> has no size, so its charts draw when it opens).
    await page.evaluate(() => {
      for (const d of document.querySelectorAll('details')) (d as HTMLDetailsElement).open = true;
    });
    await page.waitForFunction(() =>
      [...document.querySelectorAll('section.group .chart')].every((e) => (e as HTMLElement).dataset.drawn === '1'),
    );
    // Every table's charts drew; client-bound bars are marked ≥ and failed rows ✕ on the bars.
    const post = '#t-post-quick-autocannon-node24';
    const rpsText = (await chartTexts(page, `${post} .chart[data-chart="rps"]`)).join('|');
    assert.match(rpsText, /fastify ≥/);
    assert.match(rpsText, /broken ✕/);
    assert.match(rpsText, /\|failed(\||$)/);
    assert.match(rpsText, /requests\/s/);
    const drawn = await page.$$eval('section.group .chart', (els) =>
      els.map((e) => (e as HTMLElement).dataset.drawn ?? ''),
    );
    assert.ok(drawn.length >= 10 && drawn.every((d) => d === '1'), `charts drawn: ${drawn}`);

    // 4. Requests per server CPU-second instead of a CPU chart flat at 100% (solo windows here: requests/s ÷ CPU).
    assert.equal(await page.$(`${post} .chart[data-chart="cpu"]`), null, 'no CPU chart');
    const eff = await page.$eval(`${post} .chart[data-chart="efficiency"]`, (el) => {
      const w = window as unknown as { echarts: { getInstanceByDom(e: Element): { getOption(): unknown } } };
      const o = w.echarts.getInstanceByDom(el).getOption() as {
        xAxis: { name: string }[];
        yAxis: { data: string[] }[];
        series: { data: { value: number }[] }[];
      };
      return { name: o.xAxis[0]!.name, labels: o.yAxis[0]!.data, values: o.series[0]!.data.map((d) => d.value) };
    });
    assert.equal(eff.name, 'requests per server CPU-second');
    assert.ok(eff.values.length >= 3 && eff.values.every((v) => v > 0), JSON.stringify(eff));
    assert.ok(!eff.labels.includes('broken'), 'a failed row has no efficiency bar');
    assert.match(
      (await page.textContent(`${post} .chart-box:has([data-chart="efficiency"]) h4`)) ?? '',
      /requests per server CPU-second \(solo windows: requests\/s ÷ server CPU\)/,
    );

    // 4b. Every value label of the requests/s bars sits right of its whisker's high end.
    const clash = await page.$eval(`${post} .chart[data-chart="rps"]`, (el) => {
      const w = window as unknown as {
        echarts: {
          getInstanceByDom(e: Element): {
            getOption(): unknown;
            convertToPixel(f: unknown, v: unknown): number[];
          };
        };
      };
      const chart = w.echarts.getInstanceByDom(el);
      const o = chart.getOption() as { series: { data: (number | string | null)[][] }[]; yAxis: { data: string[] }[] };
      const svg = el.querySelector('svg')!.getBoundingClientRect();
      const texts = [...el.querySelectorAll('svg text')].map((t) => ({
        t: t.textContent ?? '',
        b: t.getBoundingClientRect(),
      }));
      const out: string[] = [];
      let checked = 0;
      for (const [i, lo, hi, label] of o.series[1]!.data) {
        if (typeof hi !== 'number' || typeof lo !== 'number') continue;
        const [x, y] = chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 0 }, [hi, o.yAxis[0]!.data[Number(i)]]);
        const hit = texts.find((t) => t.t === label && Math.abs(t.b.top + t.b.height / 2 - svg.top - y!) < 8);
        if (!hit) out.push(`row ${i}: label ${label} not found`);
        else if (hit.b.left - svg.left < x!)
          out.push(`row ${i}: label ${label} at ${hit.b.left - svg.left} < whisker ${x}`);
        checked++;
      }
      return { out, checked };
    });
    assert.ok(clash.checked >= 3, `labels checked: ${clash.checked}`);
    assert.deepEqual(clash.out, []);

    // 4c. A detail table scrolls inside its own box with its rank and contender columns sticky.
    const sticky = await page.$eval(`${post} table.board`, (t) => {
      const cell = (sel: string) => getComputedStyle(t.querySelector(sel)!).position;
      return [
        cell('tbody td:first-child'),
        cell('tbody td:nth-child(2)'),
        getComputedStyle(t.parentElement!).overflowX,
      ];
    });
    assert.deepEqual(sticky, ['sticky', 'sticky', 'auto']);

    // 5. Latency: a p50/p99 dot plot on a log axis whose title is drawn whole inside the chart.
    const lat = await page.$eval(`${post} .chart[data-chart="latency"]`, (el) => {
      const svg = el.querySelector('svg')!.getBoundingClientRect();
      const title = [...el.querySelectorAll('svg text')].find((t) => t.textContent === 'latency (ms, log scale)');
      const b = title?.getBoundingClientRect();
      return {
        found: Boolean(b),
        inside: b ? b.left >= svg.left && b.right <= svg.right && b.bottom <= svg.bottom : false,
      };
    });
    assert.deepEqual(lat, { found: true, inside: true }, 'the latency axis title is not clipped');
    assert.match((await chartTexts(page, `${post} .chart[data-chart="latency"]`)).join('|'), /p50\|p99/);

    // 6. Contender filter with the keyboard: Space on express's checkbox hides it everywhere.
    await page.focus('input[name="contender"][value="express"]');
    await page.keyboard.press('Space');
    assert.equal(await page.isChecked('input[name="contender"][value="express"]'), false);
    assert.ok(!(await rowLabels(page, `${post} table.board`)).includes('express'));
    assert.ok(!(await rowLabels(page, 'table.heatmap')).includes('express'));
    assert.doesNotMatch((await chartTexts(page, `${post} .chart[data-chart="rps"]`)).join('|'), /express/);
    assert.match(page.url(), /only=/, 'the filter is kept in the URL');

    // 7. Issue chips follow the filters: hiding `broken` leaves no critical finding.
    assert.equal((await page.textContent('.chips [data-severity="critical"]'))?.trim(), '1 critical');
    await page.uncheck('input[name="contender"][value="broken"]');
    assert.equal(await page.isVisible('.chips [data-severity="critical"]'), false);
    assert.equal(await page.isVisible('#findings-filtered'), true);
    await page.click('#f-all');
    assert.equal(await page.isVisible('.chips [data-severity="critical"]'), true);

    // 8. Highlight: fastify's rows are marked in every table and the heatmap.
    await page.selectOption('#f-highlight', 'fastify');
    const hl = await page.$$eval('tr.hl', (trs) => [...new Set(trs.map((tr) => (tr as HTMLElement).dataset.label))]);
    assert.deepEqual(hl, ['fastify']);
    assert.ok((await page.$$('tr.hl')).length >= 5);

    // 9. Sortable tables, by keyboard: Enter on "requests/s" sorts ascending, again descending.
    const sortBtn = `${post} table.board thead th:nth-child(3) button`;
    await page.focus(sortBtn);
    await page.keyboard.press('Enter');
    assert.equal(await page.getAttribute(`${post} table.board thead th:nth-child(3)`, 'aria-sort'), 'ascending');
    const asc = await page.$$eval(`${post} table.board tbody tr td:nth-child(3)`, (tds) =>
      tds
        .map((td) => (td as HTMLElement).dataset.v ?? '')
        .filter(Boolean)
        .map(Number),
    );
    assert.deepEqual(
      asc,
      [...asc].sort((a, b) => a - b),
    );
    await page.keyboard.press('Enter');
    assert.equal(await page.getAttribute(`${post} table.board thead th:nth-child(3)`, 'aria-sort'), 'descending');
    assert.deepEqual((await rowLabels(page, `${post} table.board`)).slice(0, 2), ['node-http', 'fastify']);
    assert.equal(await page.getAttribute(`${post} table.board thead th:nth-child(1)`, 'aria-sort'), 'none');

    // 10. Scenario filter: only post's table stays.
    await page.selectOption('#f-scenario', 'post');
    const shown = await page.$$eval('section.group:not(.hidden)', (s) => s.map((x) => x.id));
    assert.deepEqual(shown, ['t-post-quick-autocannon-node24']);
    await page.click('#f-reset');
    assert.equal((await page.$$('section.group:not(.hidden)')).length, 6);

    // 11. The Node version matrix: ping on Node 22 and 24.
    const nodes = await page.$$eval('#node-matrix table thead th', (ths) => ths.map((t) => t.textContent?.trim()));
    assert.ok(
      nodes.some((t) => t?.startsWith('Node 22')) && nodes.some((t) => t?.startsWith('Node 24')),
      String(nodes),
    );

    // 12. Compare view: run A r1, run B r2 → per cell ratio change (ping: node-http, fastify).
    await page.selectOption('#cmp-a', 'r1');
    await page.selectOption('#cmp-b', 'r2');
    const cmp = await page.$$eval('#compare-table tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')),
    );
    const fastify = cmp.find((r) => r[0] === 'fastify');
    assert.ok(fastify, JSON.stringify(cmp));
    assert.equal(fastify[1], 'ping');
    assert.match(fastify[5]!, /^[+−]\d+\.\d%$/);
    assert.match((await page.textContent('#cmp-status')) ?? '', /^\d+ cells in both runs$/);

    // 13. Print: the stylesheet hides navigation and controls and keeps the results.
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.isVisible('nav.toc'), false);
    assert.equal(await page.isVisible('#controls'), false);
    assert.equal(await page.isVisible('#overview'), true);
    assert.equal(await page.isVisible(post), true);
    await page.emulateMedia({ media: 'screen' });

    // 14. 390 px wide: nothing wider than the screen, and no chart's labels overlap.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${pathToFileURL(file).href}#`);
    await page.reload();
    await page.waitForSelector('body[data-ready="1"]');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(overflow <= 390, `page is ${overflow}px wide at 390`);
    const overlaps = await page.$$eval('section.group .chart svg', (svgs) =>
      svgs.flatMap((svg, i) => {
        const boxes = [...svg.querySelectorAll('text')]
          .filter((t) => (t.textContent ?? '').trim() !== '')
          .map((t) => ({ t: t.textContent, b: t.getBoundingClientRect() }));
        const out: string[] = [];
        for (let a = 0; a < boxes.length; a++)
          for (let c = a + 1; c < boxes.length; c++) {
            const x = boxes[a]!.b;
            const y = boxes[c]!.b;
            const w = Math.min(x.right, y.right) - Math.max(x.left, y.left);
            const h = Math.min(x.bottom, y.bottom) - Math.max(x.top, y.top);
            if (w > 1 && h > 1) out.push(`chart ${i}: '${boxes[a]!.t}' overlaps '${boxes[c]!.t}'`);
          }
        return out;
      }),
    );
    assert.deepEqual(overlaps, []);
    await page.screenshot({ path: path.join(OUT, 'leaderboard-390.png'), fullPage: false });
  });
  assert.deepEqual(errors, [], 'the page logged errors or loaded something from outside its file');
});

test('leaderboard.html in Chromium, a capacity snapshot: the latency-versus-rate chart is small multiples, one titled panel per contender with its median curve and the SLO, no legend, and follows the contender filter', {
  timeout: 120_000,
  skip: NO_CHROMIUM,
}, async () => {
  fs.mkdirSync(OUT, { recursive: true });
  const file = path.join(OUT, 'leaderboard-capacity.html');
  fs.writeFileSync(file, EXPORTERS.html.render(capacitySnapshot(), { now: new Date('2026-11-22T01:00:00Z') }));
  const errors: string[] = [];
  await withBrowser(async (ctx) => {
    const page = await open(ctx, file, errors);
    const sel = '#t-ping-capacity-wrk-node24 .chart[data-chart="capacity"]';
    assert.equal(await page.getAttribute(sel, 'data-drawn'), '1');
    const option = () =>
      page.$eval(sel, (el) => {
        const w = window as unknown as { echarts: { getInstanceByDom(e: Element): { getOption(): unknown } } };
        const o = w.echarts.getInstanceByDom(el).getOption() as {
          yAxis: { type: string }[];
          legend?: unknown[];
          title?: { text: string }[];
          grid?: unknown[];
          series: {
            name: string;
            data: unknown[];
            markLine?: { data: { yAxis: number }[] };
          }[];
        };
        return {
          yType: o.yAxis[0]!.type,
          legends: (o.legend ?? []).length,
          titles: (o.title ?? []).map((t) => t.text),
          panels: (o.grid ?? []).length,
          series: o.series.map((s) => [s.name, s.data.length] as const),
          slo: o.series.find((s) => s.markLine)?.markLine?.data[0]?.yAxis,
        };
      });
    const o = await option();
    assert.equal(o.yType, 'log');
    assert.equal(o.slo, 10);
    assert.equal(o.legends, 0, 'no legend: each panel is titled with its contender');
    assert.equal(o.panels, 5);
    assert.deepEqual([...o.titles].sort(), ['express', 'fastify', 'hono', 'node-http', 'slowpoke']);
    // Each contender's 15 steps (40 for slowpoke) as one median curve: its searches' rates
    // 0.5 × cap, cap and 1.05 × cap fall in 2 or 3 bins; slowpoke halves 8 times (peaks ±2%
    // apart, so a rate's five steps may straddle a bin edge: at most 16 bins).
    const points = Object.fromEntries(o.series.filter(([n]) => n !== 'SLO'));
    assert.deepEqual(Object.keys(points).sort(), ['express', 'fastify', 'hono', 'node-http', 'slowpoke']);
    for (const [label, n] of Object.entries(points))
      assert.ok(n >= 2 && n <= (label === 'slowpoke' ? 16 : 6), `${label}: ${n} points`);
    assert.match((await chartTexts(page, sel)).join('|'), /node-http/);
    assert.match((await chartTexts(page, sel)).join('|'), /SLO p99 ≤ 10 ms/);
    // The contender filter applies to this chart like the others.
    await page.uncheck('input[name="contender"][value="fastify"]');
    const filtered = await option();
    assert.ok(!filtered.series.some(([n]) => n === 'fastify'));
    assert.equal(filtered.panels, 4, 'one panel fewer');
  });
  assert.deepEqual(errors, [], 'the page logged errors or loaded something from outside its file');
});
