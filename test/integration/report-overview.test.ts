// The report's first screen as a reader sees it (issue 26). The README's picture
// (docs/report-overview.png, written by `npx just screenshot`) is the committed report's, checked
// through its sidecar docs/report-overview.json; and in headless Chromium (playwright-core,
// scripts/checks/screenshot.ts `withChromium`) the overview scrolls no box sideways and sticks out of
// nothing at 1366×768 and at 390×844, where every value keeps its interval. Pages: the committed
// results/leaderboard.html as it is, the committed runs re-rendered by the current exporter, and
// the test fixture (test/report-fixture.ts), which keeps its own screenshot in test-output/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { chromiumPath } from '../../harness/drivers/tools.ts';
import { readSnapshot } from '../../harness/cli/report.ts';
import { EXPORTERS } from '../../harness/report/exporters/exporter-registry.ts';
import {
  PICTURE,
  type PictureSidecar,
  pngSize,
  REPORT,
  reportIdentity,
  sha256,
  sidecarPath,
  VIEWPORT,
  withChromium,
} from '../../scripts/checks/screenshot.ts';
import { capacitySnapshot } from '../report-capacity-fixture.ts';
import { reportSnapshot } from '../report-fixture.ts';
import { ROOT } from '../helpers.ts';

const OUT = path.join(ROOT, 'test-output');
/** Without a Chromium the browser tests are skipped with this reason. */
const NO_CHROMIUM = chromiumPath()
  ? false
  : "no Chromium: install Debian's with `apt-get update && apt-get install -y chromium` (or `npx just tools` as root), or set CHROMIUM_PATH";
const RESCREEN = 'run `npx just screenshot` after re-rendering the committed report';

test('docs/report-overview.png is the committed report’s first screen (its runs, stamp and bytes, 1366×768)', () => {
  const png = fs.readFileSync(path.join(ROOT, PICTURE));
  const side = JSON.parse(fs.readFileSync(path.join(ROOT, sidecarPath(PICTURE)), 'utf8')) as PictureSidecar;
  const html = fs.readFileSync(path.join(ROOT, REPORT));
  const id = reportIdentity(html.toString('utf8'));
  assert.equal(side.report, REPORT);
  assert.ok(id.runs.length > 0, 'the committed report names its runs');
  assert.deepEqual(side.runs, id.runs, `the picture shows runs ${side.runs}, the report has ${id.runs}: ${RESCREEN}`);
  assert.equal(side.generated, id.generated, `the picture shows the report generated ${side.generated}: ${RESCREEN}`);
  assert.equal(side.reportSha256, sha256(html), `the committed report changed since its picture: ${RESCREEN}`);
  assert.equal(side.pngSha256, sha256(png), `${PICTURE} is not the file \`npx just screenshot\` wrote`);
  assert.deepEqual(pngSize(png), VIEWPORT);
  assert.deepEqual(side.viewport, VIEWPORT);
});

test('the sidecar check can fail: another report, a PNG of another size and a page without data are told apart', () => {
  const page = (runs: string[], stamp: string) =>
    `<p>Generated ${stamp} by x</p><script type="application/json" id="bench-data">${JSON.stringify({ runs: runs.map((runId) => ({ runId })) })}</script>`;
  assert.deepEqual(reportIdentity(page(['a', 'b'], '2026-01-01 00:00 UTC')), {
    runs: ['a', 'b'],
    generated: '2026-01-01 00:00 UTC',
  });
  assert.notDeepEqual(reportIdentity(page(['a', 'c'], '2026-01-01 00:00 UTC')).runs, ['a', 'b']);
  assert.throws(() => reportIdentity('<html></html>'), /no <script id="bench-data">/);
  const ihdr = Buffer.alloc(24);
  Buffer.from('89504e470d0a1a0a', 'hex').copy(ihdr);
  ihdr.write('IHDR', 12, 'ascii');
  ihdr.writeUInt32BE(390, 16);
  ihdr.writeUInt32BE(844, 20);
  assert.deepEqual(pngSize(ihdr), { width: 390, height: 844 });
  assert.notDeepEqual(pngSize(ihdr), VIEWPORT);
  assert.throws(() => pngSize(Buffer.from('GIF89a not a png at all')), /not a PNG/);
});

/**
 * What sticks out sideways in the overview at the page's width: the page itself wider than the
 * window, any box of the overview whose content is wider than the box (a scrolled or clipped
 * box, or content spilling out of a table cell), any element past the window's right edge; and
 * the heatmap values whose interval is not shown.
 */
async function overflowOf(page: Page): Promise<{ page: string[]; boxes: string[]; hiddenIntervals: number }> {
  return page.evaluate(() => {
    const vw = window.innerWidth;
    const name = (e: Element) =>
      `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.trim().split(/\s+/).join('.')}` : ''} "${(e.textContent ?? '').trim().slice(0, 40)}"`;
    const out = { page: [] as string[], boxes: [] as string[], hiddenIntervals: 0 };
    const sw = document.documentElement.scrollWidth;
    if (sw > vw) out.page.push(`the page is ${sw}px wide in a ${vw}px window`);
    const overview = document.querySelector('#overview');
    if (!overview) return { ...out, page: [...out.page, 'no #overview'] };
    for (const e of [overview, ...overview.querySelectorAll('*')]) {
      const r = e.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const he = e as HTMLElement;
      if (he.clientWidth > 0 && he.scrollWidth > he.clientWidth + 1)
        out.boxes.push(`${name(e)}: content ${he.scrollWidth}px in a ${he.clientWidth}px box`);
      else if (r.right > vw + 0.5 || r.left < -0.5)
        out.boxes.push(`${name(e)}: ${Math.round(r.left)}–${Math.round(r.right)}px in a ${vw}px window`);
    }
    for (const iv of overview.querySelectorAll('table.heatmap td .iv'))
      if ((iv.textContent ?? '').trim() && (iv as HTMLElement).offsetWidth === 0) out.hiddenIntervals++;
    return out;
  });
}

/** Opens `file` at each of the two widths and returns what overflows, by width; screenshots into test-output/. */
async function overflowAtBothWidths(file: string, shot: string): Promise<Record<string, unknown>> {
  const found: Record<string, unknown> = {};
  for (const viewport of [VIEWPORT, { width: 390, height: 844 }])
    await withChromium(viewport, async (ctx) => {
      const page = await ctx.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(pathToFileURL(file).href);
      await page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
      const o = await overflowOf(page);
      await page.screenshot({ path: path.join(OUT, `${shot}-${viewport.width}.png`) });
      const bad = [
        ...o.page,
        ...o.boxes.slice(0, 12),
        ...(o.hiddenIntervals ? [`${o.hiddenIntervals} intervals hidden`] : []),
      ];
      if (bad.length || errors.length) found[`${viewport.width}×${viewport.height}`] = [...bad, ...errors];
    });
  return found;
}

test('a page that is too wide is caught (the overflow probe can fail)', {
  skip: NO_CHROMIUM,
  timeout: 120_000,
}, async () => {
  fs.mkdirSync(OUT, { recursive: true });
  const file = path.join(OUT, 'overflow-probe.html');
  fs.writeFileSync(
    file,
    '<body data-ready="1"><section id="overview"><div style="width:300px;overflow-x:auto"><table class="heatmap"><tr><td style="white-space:nowrap">wide wide wide wide wide wide wide wide wide wide wide wide<span class="iv" style="display:none">1–2</span></td></tr></table></div></section></body>',
  );
  const found = await overflowAtBothWidths(file, 'overflow-probe');
  const narrow = (found['390×844'] ?? []) as string[];
  assert.ok(
    narrow.some((l) => /content \d+px in a 300px box/.test(l)),
    JSON.stringify(found),
  );
  assert.ok(
    narrow.some((l) => /1 intervals hidden/.test(l)),
    JSON.stringify(found),
  );
});

test('the fixture reports (closed-loop and capacity): no horizontal overflow of the overview at 1366×768 or 390×844, every interval shown', {
  skip: NO_CHROMIUM,
  timeout: 180_000,
}, async () => {
  fs.mkdirSync(OUT, { recursive: true });
  const now = new Date('2026-11-22T01:00:00Z');
  for (const [name, snap] of [
    ['overview-fixture', reportSnapshot()],
    ['overview-capacity-fixture', capacitySnapshot()],
  ] as const) {
    const file = path.join(OUT, `${name}.html`);
    fs.writeFileSync(file, EXPORTERS.html.render(snap, { now }));
    assert.deepEqual(await overflowAtBothWidths(file, name), {}, name);
  }
});

test('the committed runs re-rendered by this code: no horizontal overflow of the overview at 1366×768 or 390×844', {
  skip: NO_CHROMIUM,
  timeout: 240_000,
}, async () => {
  fs.mkdirSync(OUT, { recursive: true });
  const { snapshot } = readSnapshot(path.join(ROOT, 'results'), path.join(ROOT, 'scenarios'));
  assert.ok(snapshot.runs.length > 0, 'the committed results/runs/ has runs');
  const file = path.join(OUT, 'overview-committed-runs.html');
  fs.writeFileSync(file, EXPORTERS.html.render(snapshot));
  assert.deepEqual(await overflowAtBothWidths(file, 'overview-committed-runs'), {});
});

test('the committed results/leaderboard.html: no horizontal overflow of the overview at 1366×768 or 390×844', {
  skip: NO_CHROMIUM,
  timeout: 180_000,
}, async () => {
  fs.mkdirSync(OUT, { recursive: true });
  assert.deepEqual(await overflowAtBothWidths(path.join(ROOT, REPORT), 'overview-committed'), {});
});
