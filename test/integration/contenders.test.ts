// The NestJS family and LoopBack 4: each passes the contract verifier (with its variants), the
// interceptor variant's timing lines land in its captured log, and a contender that fails to
// build is reported with the compiler's message while the rest of the bake-off runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES, readCells, ROOT, runCli, tmpDir } from '../helpers.ts';

const NEST = ['nestjs-express-axios', 'nestjs-fastify-axios', 'nestjs-fastify-undici'];

test('the NestJS contenders (and their interceptor variants) and LoopBack 4 pass the contract verifier', async () => {
  const r = await runCli(['verify', ...NEST, 'loopback4']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  for (const name of [...NEST, ...NEST.map((n) => `${n} +interceptor`), 'loopback4']) {
    assert.match(
      r.stdout,
      new RegExp(`^${name.replace('+', '\\+')} \\(started in \\d+ ms\\)\\n(  pass  \\w+\\n){6}`, 'm'),
      `${name}:\n${r.stdout}`,
    );
  }
});

test("the interceptor variant logs each outbound call through Nest's Logger into the captured server log", async () => {
  const results = tmpDir('interceptor');
  const r = await runCli([
    '--results-dir',
    results,
    'bench',
    'nestjs-fastify-undici',
    'nestjs-express-axios',
    '--scenario',
    'fanout',
    '--profile',
    'smoke',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const cells = readCells(results);
  assert.deepEqual(cells.map((c) => c.label).sort(), [
    'nestjs-express-axios',
    'nestjs-express-axios +interceptor',
    'nestjs-fastify-undici',
    'nestjs-fastify-undici +interceptor',
    'node-http', // the scenario's baseline, measured unasked in the same run
  ]);
  for (const c of cells.filter((x) => x.contender !== 'node-http')) {
    assert.equal(c.status, 'ok', JSON.stringify(c.failure));
    const log = fs.readFileSync(path.join(results, c.logFile), 'utf8');
    const lines = log.split('\n').filter((l) => /HttpTiming.*GET .*\/data 200 in [\d.]+ ms/.test(l));
    // The log is capped at its first and last MiB (lifecycle/logs.ts): a cut log holds fewer lines
    // than requests × 5, but both of its ends are full of timing lines.
    const cut = /\[bench: \d+ bytes cut/.test(log);
    if (c.variant)
      assert.ok(
        cut ? lines.length >= 10_000 : lines.length >= 5 * c.load.requests.total * 0.9,
        `${c.label}: ${lines.length} timing lines for ${c.load.requests.total} requests${cut ? ' (log capped)' : ''}`,
      );
    else assert.equal(lines.length, 0, `${c.label} must not log`);
  }
});

test("a contender that fails to build is recorded with the compiler's message, and the bake-off goes on", async () => {
  const results = tmpDir('build');
  const contenders = tmpDir('build-contenders');
  for (const f of ['broken-build', 'crashy'])
    fs.cpSync(path.join(FIXTURES, f), path.join(contenders, f), { recursive: true });
  fs.writeFileSync(
    path.join(contenders, 'broken-build', 'tsconfig.json'),
    fs
      .readFileSync(path.join(FIXTURES, 'broken-build', 'tsconfig.json'), 'utf8')
      .replace('../../../../node_modules/@types', path.join(ROOT, 'node_modules', '@types')),
  );
  const r = await runCli([
    '--contenders-dir',
    contenders,
    '--results-dir',
    results,
    'bench-all',
    '--profile',
    'smoke',
    '--scenario',
    'ping',
  ]);
  assert.equal(r.code, 3, `a build failure exits 3 (core/exit-codes.ts)\n${r.stderr}`);
  assert.match(r.stderr, /build FAILED for broken-build:[\s\S]*error TS2322/);
  const cells = readCells(results);
  const broken = cells.find((c) => c.contender === 'broken-build');
  assert.equal(broken.status, 'build-failed');
  assert.match(broken.failure.logTail, /src\/main\.ts\(5,7\): error TS2322/);
  assert.equal(cells.find((c) => c.contender === 'crashy').status, 'ok', 'the next contender still ran');
  await runCli(['--results-dir', results, '--contenders-dir', contenders, 'leaderboard']);
  assert.match(
    fs.readFileSync(path.join(results, 'LEADERBOARD.md'), 'utf8'),
    /\*\*critical\*\* · `broken-build` · ping \(smoke\): \*\*build failed\*\*\. build failed: tsc -p tsconfig\.json\. Compiler output: .*TS2322/,
  );
});
