// `just claims` (issue 24): the plan of every claim in its source's own shape, ≥ 5 rounds per cell,
// its expected duration from the profiles, the narrowing options, bad input, and one real (short)
// run through the bench machinery whose verdict is printed and marked provisional.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { getProfile, interleaveOf, measuredSeconds } from '../../harness/core/profiles.ts';
import { groupPlan } from '../../harness/scheduler/group-plan.ts';
import type { CellSpec } from '../../harness/scheduler/plan.ts';
import { ESTIMATE } from '../../harness/scheduler/progress.ts';
import { fmtDuration } from '../../harness/core/format.ts';
import { readCells, runCli, tmpDir } from '../helpers.ts';

/**
 * Expected ms of `cells` cells of one profile in groups of one scenario each (server start,
 * warm-up, rounds × windows); a profile with interleaved rounds by scheduler/group-plan.ts
 * `groupPlan` (its rounds, restarts and re-warm-ups).
 */
function expectedMs(profile: string, cellsPerScenario: number[], rounds: number): number {
  const p = getProfile(profile);
  if (interleaveOf(p))
    return cellsPerScenario.reduce(
      (s, n) =>
        s +
        groupPlan(
          Array.from({ length: n }, () => ({ profile: p }) as CellSpec),
          rounds,
          'bench',
        ).ms,
      0,
    );
  const warm = p.warmupS * 1000 + (p.warmupS > 0 ? ESTIMATE.windowOverhead : 0);
  const window = measuredSeconds(p) * 1000 + ESTIMATE.windowOverhead;
  return cellsPerScenario.reduce((s, n) => s + n * (ESTIMATE.server + warm + rounds * window), 0);
}

test('claims --dry-run: one bench run per source shape, ≥ 5 rounds, every cell listed, expected duration from the profiles', async () => {
  const r = await runCli(['claims', '--dry-run']);
  assert.equal(r.code, 0, r.stderr);
  const out = r.stdout;
  for (const p of ['k6-ramp', 'k6-vus', 'pipelined', 'stress']) assert.match(out, new RegExp(`^\\d\\. ${p}: `, 'm'));
  // k6-ramp: the five nestjs-undici claims, 70 s per trial, 6 cells (3 stacks, each with its interceptor variant).
  assert.match(out, /1\. k6-ramp: 6 cells × 5 rounds × 70 s windows/);
  assert.match(out, /cell: nestjs-fastify-undici \+interceptor · fanout/);
  assert.match(
    out,
    /command: just bench nestjs-fastify-undici nestjs-express-axios nestjs-fastify-axios --profile k6-ramp --scenario fanout --rounds 5 --no-baseline\n/,
  );
  assert.match(
    out,
    /stress: 14 cells × 5 solo rounds × 12 s windows, then 8 interleaved rounds of 2 s in one server process per cell/,
  );
  assert.doesNotMatch(out, /cell: node-http/, 'no scenario baseline unless --with-baselines');
  // Hasura: not measured, with the command.
  assert.match(
    out,
    /not measured here: s002-nestjs-graphql-vs-hasura: needs Docker .*`just bench nestjs-graphql-mercurius hasura --scenario graphql-users --profile k6-vus --rounds 5`/,
  );
  const total =
    expectedMs('k6-ramp', [6], 5) +
    expectedMs('k6-vus', [2], 5) +
    expectedMs('pipelined', [2, 2, 2, 2], 2) +
    expectedMs('stress', [2, 2, 2, 2, 2, 2, 2], 5);
  assert.match(out, new RegExp(`Expected duration: ${fmtDuration(total)} `));
  // k6-ramp 35 min, stress 20 min (its 60 s per cell, as the source, and the interleaved rounds), pipelined 11 min (8 server processes per cell).
  assert.ok(total > 45 * 60_000 && total <= 70 * 60_000, `within 70 min: ${total} ms`);
});

test("claims --claim / --source narrow the plan; --with-baselines adds the scenarios' baselines", async () => {
  const one = await runCli(['claims', '--dry-run', '--claim', 's004-postgraphile-live']);
  assert.equal(one.code, 0, one.stderr);
  const cells = one.stdout.match(/cell: .*/g) ?? [];
  assert.deepEqual(cells, ['cell: postgraphile-fastify · ping', 'cell: postgraphile-express · ping']);
  assert.match(one.stdout, new RegExp(`Expected duration: ${fmtDuration(expectedMs('stress', [2], 5))} `));
  assert.doesNotMatch(one.stdout, /k6-ramp|hasura/);
  const src = await runCli(['claims', '--dry-run', '--source', 'nexus/express/fastify report', '--with-baselines']);
  assert.equal(src.code, 0, src.stderr);
  assert.match(
    src.stdout,
    /1\. pipelined: 12 cells × 2 solo rounds × 2 s windows, then 16 interleaved rounds of 1 s in 8 server processes per cell/,
  );
  assert.match(src.stdout, /claims: s003-json, s003-echo, s003-users, s003-post\n/);
  assert.match(src.stdout, /cell: node-http · json/);
  assert.match(src.stdout, /--rounds 2 --no-variants\n/);
  assert.doesNotMatch(src.stdout, /^2\./m);
  assert.match(src.stdout, new RegExp(`Expected duration: ${fmtDuration(expectedMs('pipelined', [3, 3, 3, 3], 2))} `));
});

test('claims: bad input is exit 2 with what was wrong', async () => {
  const cases: [string[], RegExp][] = [
    [['--claim', 'nope'], /unknown claim id\(s\) nope: ids are s000-undici-vs-axios/],
    [['--source', 'nope'], /unknown source 'nope': sources are/],
    [['--rounds', '3'], /--rounds must be at least 5 for a verdict/],
    [['--claim', 's000-undici-vs-axios', '--duration', '2'], /--duration does not apply to k6-ramp/],
  ];
  for (const [args, re] of cases) {
    const r = await runCli(['claims', '--dry-run', ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
  }
});

test('claims --claim s003-json --duration 1: a real run in the pipelined shape, interleaved rounds in 8 processes, its verdict printed as provisional', async () => {
  const results = tmpDir('claims');
  const r = await runCli(['claims', '--claim', 's003-json', '--duration', '1', '--seed', '1'], {
    BENCH_RESULTS_DIR: results,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Expected duration: /);
  assert.match(r.stderr, /claims: run 1 of 1 \(pipelined\)/);
  const cells = readCells(results);
  assert.deepEqual(cells.map((c) => `${c.label} ${c.scenario} ${c.profile}`).sort(), [
    'express json pipelined',
    'fastify json pipelined',
  ]);
  for (const c of cells) {
    assert.equal(c.stats.trials, 2);
    assert.equal(c.stats.paired?.efficiency.length, 16);
    assert.equal(new Set(c.stats.paired?.instances).size, 8);
    assert.equal(c.load.profile.pipelining, 10);
    assert.equal(c.load.profile.durationS, 1);
  }
  const [run] = fs.readdirSync(path.join(results, 'runs'));
  assert.match(
    r.stdout,
    new RegExp(
      `s003-json \\(pipelined\\): (confirmed|refuted|inconclusive[^;]*) \\(provisional: 2 × 1 s, source 2 × 2 s\\) — ours .*; run ${run}`,
    ),
  );
});
