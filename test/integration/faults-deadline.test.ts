/**
 * Faults, round three: every network wait has a deadline. A response body that never ends (the
 * fixture test/fixtures/faults/endless-body: 3 right answers, then status 200, "pong" and a space
 * every second, never ending) fails verification within the smoke profile's 1 s time-out with the
 * reason, the run ends and releases the machine lock; its `+late` variant, which hangs only after
 * verification and the burst, fails its measured window (the load drivers' whole-request time-outs).
 * contract/http.ts `fetchOnce` is tested on real sockets: a body that trickles a byte every 100 ms
 * (a between-bytes time-out never fires) is cut at the whole-response deadline.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { fetchOnce } from '../../harness/contract/http.ts';
import { EXIT } from '../../harness/core/exit-codes.ts';
import { readCells, ROOT, runCli, TEST_LOCK_FILE, tmpDir } from '../helpers.ts';

const FAULTS = path.join(ROOT, 'test', 'fixtures', 'faults');

/** A loopback server whose /trickle sends its head at once, then one byte every 100 ms, forever. */
async function trickler(t: { after: (f: () => void) => void }): Promise<string> {
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    if (req.url === '/ok') return res.writeHead(200, { 'content-length': 4 }).end('pong');
    if (req.url === '/silent') return; // never answers
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    const timer = setInterval(() => res.write('.'), 100);
    timers.add(timer);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const x of timers) clearInterval(x);
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('fetchOnce: a deadline for the whole response, not only between bytes', async (t) => {
  const base = await trickler(t);
  assert.equal((await fetchOnce(base, { method: 'GET', path: '/ok' }, 1000)).body.toString(), 'pong');

  let t0 = performance.now();
  await assert.rejects(
    fetchOnce(base, { method: 'GET', path: '/trickle' }, 600),
    /the body did not end within 600 ms of the request \(status 200, body still open\): a response must end/,
  );
  let ms = performance.now() - t0;
  assert.ok(
    ms >= 550 && ms < 1500,
    `cut at the 600 ms deadline (${Math.round(ms)} ms), though a byte came every 100 ms`,
  );

  t0 = performance.now();
  await assert.rejects(
    fetchOnce(base, { method: 'GET', path: '/trickle' }, 5000, false, 300),
    /the body did not end within 300 ms of the response head/,
  );
  ms = performance.now() - t0;
  assert.ok(ms < 1500, `the body deadline (300 ms after the head) comes before the 5 s one (${Math.round(ms)} ms)`);

  t0 = performance.now();
  await assert.rejects(
    fetchOnce(base, { method: 'GET', path: '/silent' }, 400, false, 100),
    /no response within 400 ms/,
  );
  assert.ok(performance.now() - t0 < 1500, 'no head: the request deadline');

  // The keep-alive agent of the burst: a cut request does not poison the next one.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.after(() => agent.destroy());
  await assert.rejects(fetchOnce(base, { method: 'GET', path: '/trickle' }, 300, agent), /did not end/);
  assert.equal((await fetchOnce(base, { method: 'GET', path: '/ok' }, 1000, agent)).status, 200);
});

/** Pids of live processes whose working folder is `dir` (the fixture's servers). */
function processesIn(dir: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return fs.readlinkSync(`/proc/${d}/cwd`) === dir;
      } catch {
        return false;
      }
    })
    .map(Number);
}

test('a response body that never ends fails verification within the smoke time-out; the run ends, the lock is released', async () => {
  const results = tmpDir('endless');
  const t0 = performance.now();
  const r = await runCli([
    '--contenders-dir',
    FAULTS,
    '--results-dir',
    results,
    'bench',
    'endless-body',
    '--profile',
    'smoke',
    '--scenario',
    'ping',
    '--no-baseline',
  ]);
  const wallS = (performance.now() - t0) / 1000;
  // It hung for good before (SIGTERM after 2 min 15 s); now: start, the burst's first 20 cut
  // requests (1 s each, 10 at a time), the +late cell's 2 s window, the report.
  assert.ok(wallS < 45, `the bench ended promptly (${wallS.toFixed(1)} s)`);
  assert.equal(r.code, EXIT.failed, `exit 1: a verification failed\n${r.stderr}`);
  assert.match(
    r.stderr,
    /endless-body · ping · smoke · autocannon · Node \d+: VERIFY-FAILED: verification failed: concurrency burst \(smoke\): GET \/ping: the body did not end within 1000 ms of the response head \(status 200, body still open\): a response must end/,
  );
  const cells = readCells(results);
  const base = cells.find((c) => c.label === 'endless-body');
  const late = cells.find((c) => c.label === 'endless-body +late');
  assert.equal(base?.status, 'verify-failed', JSON.stringify(base));
  assert.ok((base?.burst?.ms ?? Infinity) < 10_000, `the burst ended in ${base?.burst?.ms} ms`);
  // The window's driver has whole-request time-outs too (autocannon: 1 s in smoke).
  assert.equal(late?.status, 'load-failed', JSON.stringify(late));
  assert.match(late?.failure?.reason ?? '', /failed under load: .* [1-9]\d* timeouts/);
  assert.equal(fs.existsSync(TEST_LOCK_FILE), false, 'the machine lock is released');
  assert.deepEqual(processesIn(path.join(FAULTS, 'endless-body')), [], 'no server left');
});
