/**
 * `just screenshot` (issue 26, "The README's picture is the real report"): renders the committed
 * report `results/leaderboard.html` in headless Chromium (playwright-core, pinned in package.json;
 * `$CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`; no browser is downloaded) at 1366×768 and
 * writes its first screen to `docs/report-overview.png`, with the sidecar
 * `docs/report-overview.json` naming the report it shows (its run ids, its "Generated" stamp and
 * its SHA-256). test/integration/report-overview.test.ts checks that the sidecar, the PNG and the committed
 * report agree, so a re-rendered report without a new screenshot fails the tests.
 *
 * Run: `npx just screenshot [--report FILE] [--out FILE.png]`. Exit 0 written; 2 no Chromium, no
 * report or a bad option (the message says what to do).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { chromiumPath } from '../../harness/drivers/tools.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
/** The committed report and the README's picture of it (repository-relative). */
export const REPORT = 'results/leaderboard.html';
export const PICTURE = 'docs/report-overview.png';
/** The viewport of the picture, in CSS pixels (device scale factor 1): a common laptop screen. */
export const VIEWPORT = { width: 1366, height: 768 } as const;

/** What the sidecar JSON (the picture's path with `.json`) records about the report it shows. */
export interface PictureSidecar {
  /** The report file, repository-relative. */
  report: string;
  /** Every run id of the report's data block, in its order. */
  runs: string[];
  /** The report's "Generated … UTC" stamp (a re-rendered report has a new one). */
  generated: string;
  /** SHA-256 (hex) of the report file and of the PNG written from it. */
  reportSha256: string;
  pngSha256: string;
  viewport: { width: number; height: number };
}

/**
 * The identity of a rendered report page: the run ids of its data block
 * (`<script id="bench-data">`, harness/report/exporters/html-page-data.ts `pageData`) and its "Generated"
 * stamp. Throws when the page has no data block (not a leaderboard page).
 */
export function reportIdentity(html: string): { runs: string[]; generated: string } {
  const m = /<script type="application\/json" id="bench-data"[^>]*>([\s\S]*?)<\/script>/.exec(html);
  if (!m?.[1]) throw new Error('not a leaderboard page: no <script id="bench-data"> block');
  const data = JSON.parse(m[1]) as { runs?: { runId: string }[] };
  const generated = /Generated ([^<]*?UTC)/.exec(html)?.[1] ?? '';
  return { runs: (data.runs ?? []).map((r) => r.runId), generated };
}

/** Width and height in pixels of a PNG (its IHDR chunk); throws on anything that is not a PNG. */
export function pngSize(buf: Buffer): { width: number; height: number } {
  const signature = '89504e470d0a1a0a';
  if (buf.length < 24 || buf.subarray(0, 8).toString('hex') !== signature || buf.toString('ascii', 12, 16) !== 'IHDR')
    throw new Error('not a PNG file');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

/** SHA-256 of bytes, hex. */
export const sha256 = (b: Buffer | string): string => crypto.createHash('sha256').update(b).digest('hex');

/** The sidecar's path for a picture: `x.png` → `x.json`. */
export const sidecarPath = (png: string): string => png.replace(/\.png$/, '.json');

/**
 * Opens a headless Chromium (a throwaway profile) at `viewport`, runs `fn`, closes it. Throws
 * when no Chromium is found (`chromiumPath`).
 */
export async function withChromium<T>(
  viewport: { width: number; height: number },
  fn: (ctx: BrowserContext) => Promise<T>,
): Promise<T> {
  const exe = chromiumPath();
  if (!exe) throw new Error('no Chromium: set CHROMIUM_PATH, or apt-get install -y chromium (npx just tools as root)');
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bakeoff-chromium-'));
  const ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: exe,
    headless: true,
    viewport,
    deviceScaleFactor: 1,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    return await fn(ctx);
  } finally {
    await ctx.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
}

/**
 * Renders `report` (an HTML file) at VIEWPORT, waits for its script (`body[data-ready="1"]`),
 * writes the first screen to `out` and the sidecar next to it; returns the sidecar.
 */
export async function screenshot(report: string, out: string): Promise<PictureSidecar> {
  const html = fs.readFileSync(report);
  const id = reportIdentity(html.toString('utf8'));
  await withChromium(VIEWPORT, async (ctx) => {
    const page = await ctx.newPage();
    await page.goto(pathToFileURL(report).href);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30_000 });
    fs.mkdirSync(path.dirname(out), { recursive: true });
    await page.screenshot({ path: out });
  });
  const sidecar: PictureSidecar = {
    report: path.relative(ROOT, report).split(path.sep).join('/'),
    runs: id.runs,
    generated: id.generated,
    reportSha256: sha256(html),
    pngSha256: sha256(fs.readFileSync(out)),
    viewport: { ...VIEWPORT },
  };
  fs.writeFileSync(sidecarPath(out), `${JSON.stringify(sidecar, null, 2)}\n`);
  return sidecar;
}

/** `just screenshot --help`. */
export const USAGE = `usage: npx just screenshot [--report FILE] [--out FILE.png]

Renders a leaderboard page in headless Chromium at ${VIEWPORT.width}×${VIEWPORT.height} and writes its first screen.

Options:
  --report FILE     the report page (default: ${REPORT})
  --out FILE.png    the picture; its sidecar FILE.json names the report's runs (default: ${PICTURE})
  -h, --help        this text

Exit codes:
  0  ok
  2  usage or bad input: a bad option, no report, no Chromium`;

async function main(argv: string[]): Promise<number> {
  let o: { report: string; out: string };
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        report: { type: 'string', default: REPORT },
        out: { type: 'string', default: PICTURE },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    o = { report: path.resolve(ROOT, values.report), out: path.resolve(ROOT, values.out) };
  } catch (e) {
    console.error(`error: ${(e as Error).message}\nusage: npx just screenshot [--report FILE] [--out FILE.png]`);
    return 2;
  }
  if (!fs.existsSync(o.report)) {
    console.error(`error: ${o.report} does not exist: write it first with \`npx just leaderboard\``);
    return 2;
  }
  if (!chromiumPath()) {
    console.error(
      "error: no Chromium: set CHROMIUM_PATH to a Chromium binary, or install Debian's with `apt-get install -y chromium` (`npx just tools` as root)",
    );
    return 2;
  }
  const s = await screenshot(o.report, o.out);
  console.log(
    `${path.relative(ROOT, o.out)}: ${s.viewport.width}×${s.viewport.height}, ${s.report} (runs ${s.runs.join(', ')}; generated ${s.generated})`,
  );
  return 0;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
