// The report page at a laptop's 1366×768 and a phone's 390×844 in headless Chromium
// (playwright-core and Debian's chromium, as test/html.test.ts): the answer's lines and the
// confidence line on the first screen; no detail table, heatmap or winners table wider than its
// box (flags wrap on the desktop, rows become cards on the phone), with every fold open; the
// details folded so that the desktop page is at most 12 screens; no Compare on a one-run page; the
// winners table follows the contender filter. Inputs: the report fixture as one run and as a
// bake-off of two runs, and the committed results (skipped in a clone without them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { chromiumPath } from '../../harness/drivers/tools.ts';
import { EXPORTERS } from '../../harness/report/exporters/exporter-registry.ts';
import { readSnapshot } from '../../harness/cli/report.ts';
import type { ReportSnapshot } from '../../harness/report/snapshot.ts';
import { reportSnapshot } from '../report-fixture.ts';
import { ROOT } from '../helpers.ts';

const CHROMIUM = chromiumPath();
const SKIP = CHROMIUM
  ? false
  : "no Chromium: install Debian's with `apt-get update && apt-get install -y chromium` (or `npx just tools` as root), or set CHROMIUM_PATH";
const NOW = new Date('2026-11-22T01:00:00Z');
const SCREENS = [
  { width: 1366, height: 768 },
  { width: 390, height: 844 },
];

/** The fixture (two runs), one run of it, and the committed results' newest quick run with the whole report. */
function pages(): { name: string; snap: ReportSnapshot; runId?: string }[] {
  const fixture = reportSnapshot();
  const one = { ...fixture, runs: fixture.runs.filter((r) => r.meta.runId === 'r2') };
  const committed = readSnapshot(path.join(ROOT, 'results'), path.join(ROOT, 'scenarios')).snapshot;
  const quick = committed.runs.filter((r) => r.meta.profile === 'quick').at(-1);
  return [
    { name: 'fixture', snap: fixture },
    { name: 'fixture-one-run', snap: one, runId: 'r2' },
    ...(quick ? [{ name: 'committed-one-run', snap: { ...committed, runs: [quick] }, runId: quick.meta.runId }] : []),
    ...(committed.runs.length ? [{ name: 'committed', snap: committed }] : []),
  ];
}

/** Tables (detail, heatmap, winners, findings, claims, footprint, runs) whose scroll box is narrower than the table, as "class|section|widths". */
const overflowing = (page: Page) =>
  page.$$eval(
    'table.board, table.heatmap, table.winners, table.issues, table.claims, table.footprint, table.runs',
    (ts) =>
      ts.flatMap((t) => {
        const box = (t.closest('.scroll') ?? t.parentElement) as HTMLElement;
        if (!t.checkVisibility() || box.scrollWidth <= box.clientWidth + 1) return [];
        return [`${t.className}|${t.closest('section')?.id}|${box.scrollWidth}>${box.clientWidth}`];
      }),
  );

test('the page at 1366×768 and 390×844: the answer first, tables that fit, details folded, no Compare on one run', {
  timeout: 300_000,
  skip: SKIP,
}, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bakeoff-layout-'));
  const ctx = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: CHROMIUM ?? undefined,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  try {
    for (const p of pages()) {
      const file = path.join(dir, `${p.name}.html`);
      fs.writeFileSync(file, EXPORTERS.html.render(p.snap, { now: NOW, runId: p.runId }));
      const html = fs.readFileSync(file, 'utf8');
      const runs = new Set(p.snap.runs.map((r) => r.meta.runId)).size;
      if (runs === 1) {
        assert.doesNotMatch(html, /id="compare"/, `${p.name}: no Compare on a one-run page`);
        assert.doesNotMatch(html, /href="#compare"/, `${p.name}: no Compare link`);
      }
      for (const screen of SCREENS) {
        const at = `${p.name} at ${screen.width}×${screen.height}`;
        const page = await ctx.newPage();
        await page.setViewportSize(screen);
        await page.goto(pathToFileURL(file).href);
        await page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
        for (const sel of ['#overview ul.answer li', '#overview p.confidence']) {
          const box = await page.locator(sel).first().boundingBox();
          assert.ok(
            box && box.y + box.height <= screen.height,
            `${at}: ${sel} on the first screen (${JSON.stringify(box)})`,
          );
        }
        const first = (await page.textContent('#overview ul.answer li')) ?? '';
        assert.match(first, /: \S+/, `${at}: the first scenario's line names its leaders`);
        assert.match((await page.textContent('#overview p.confidence')) ?? '', /Confidence: Resolution: /);
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        if (screen.width === 1366) assert.ok(height <= 12 * screen.height, `${at}: ${height} px by default`);
        assert.ok(
          (await page.evaluate(() => document.documentElement.scrollWidth)) <= screen.width,
          `${at}: the page is no wider than the screen`,
        );
        await page.evaluate(() => {
          for (const d of document.querySelectorAll('details')) (d as HTMLDetailsElement).open = true;
        });
        assert.deepEqual(await overflowing(page), [], `${at}: tables wider than their box`);
        await page.close();
      }
    }
    // The winners table follows the contender filter.
    const file = path.join(dir, 'fixture.html');
    const page = await ctx.newPage();
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="1"]');
    const names = () =>
      page.$$eval('table.winners .who-name', (xs) =>
        xs.filter((x) => !x.classList.contains('hidden')).map((x) => (x as HTMLElement).dataset.label),
      );
    assert.ok((await names()).includes('fastify'));
    await page.uncheck('input[name="contender"][value="fastify"]');
    assert.ok(!(await names()).includes('fastify'), 'fastify left the winners table');
    await page.close();
  } finally {
    await ctx.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
