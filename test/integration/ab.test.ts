/**
 * `ab` (harness/cli/ab.ts): the in-run A/B of two builds of one contender. The verdict from the
 * interleaved rounds, its input checks, and a real A/B (real servers, real wrk, B from git) that
 * catches a planted CPU cost and exits 1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { abVerdict, parseEnvPairs } from '../../harness/cli/ab.ts';
import type { CellResult } from '../../harness/store/results.ts';
import { findWrk } from '../../harness/drivers/wrk.ts';
import { type ConnectionProfile, getProfile } from '../../harness/core/profiles.ts';
import { runCli, tmpDir } from '../helpers.ts';

/** A cell with interleaved rounds of these efficiencies. */
const cell = (efficiency: number[]) =>
  ({ stats: { paired: { rounds: efficiency.map((_, i) => i + 1), efficiency } } }) as unknown as CellResult;

test('the A/B verdict: A ÷ B per round, slower when the 95% CI lies below 1, its resolution from the noise', () => {
  const b = [100, 120, 90, 110, 105, 95, 115, 100];
  const slower = abVerdict('json', cell(b.map((x, i) => x * 0.9 * (i % 2 ? 1.01 : 0.99))), cell(b));
  assert.equal(slower?.verdict, 'slower');
  assert.ok(slower && Math.abs(slower.ratio - 0.9) < 0.01);
  assert.ok(slower && slower.ci[0] < slower.ratio && slower.ratio < slower.ci[1] && slower.ci[1] < 1);
  assert.ok(slower && slower.mdd > 0 && slower.mdd < 0.05, `a 1% noise resolves a few %: ${slower?.mdd}`);
  const same = abVerdict('json', cell(b.map((x, i) => x * (i % 2 ? 1.002 : 0.998))), cell(b));
  assert.equal(same?.verdict, 'equal within 5%');
  assert.equal(abVerdict('json', cell([1]), cell([1])), null, 'one round: no verdict');
});

test('--env takes KEY=VALUE pairs; anything else is bad input', () => {
  assert.deepEqual(parseEnvPairs(['BURN_US=3', 'X=']), { BURN_US: '3', X: '' });
  assert.throws(() => parseEnvPairs(['3=BURN']), /--env takes KEY=VALUE/);
});

test('ab: an unknown contender or git revision is exit 2 before anything runs', async () => {
  const results = tmpDir('ab-bad');
  const typo = await runCli(['ab', 'fastfy', '--ref', 'HEAD', '--results-dir', results]);
  assert.equal(typo.code, 2, typo.stderr);
  assert.match(typo.stderr, /did you mean.*fastify/i);
  const rev = await runCli(['ab', 'node-http', '--ref', 'no-such-rev-xyz', '--results-dir', results]);
  assert.equal(rev.code, 2, rev.stderr);
  assert.match(rev.stderr, /'no-such-rev-xyz' is not a git revision/);
  assert.equal(fs.existsSync(path.join(results, 'ab', 'runs')), false, 'no run was started');
});

test('ab: a planted CPU cost in A is a regression (exit 1), measured in one interleaved run against B from git', {
  skip: findWrk() ? false : 'wrk is not installed (apt-get install -y wrk)',
}, async () => {
  const results = tmpDir('ab-real');
  const r = await runCli([
    'ab',
    'selftest-burn',
    '--ref',
    'HEAD',
    '--contenders-dir',
    'contenders/_selftest',
    '--scenario',
    'json',
    '--profile',
    'quick',
    '--env',
    'BURN_US_JSON=60',
    '--results-dir',
    results,
  ]);
  assert.equal(r.code, 1, `exit ${r.code}: ${r.stdout.slice(-2000)}${r.stderr.slice(-2000)}`);
  assert.match(r.stdout, /json\s+A ÷ B 0\.\d+ \(95% CI [\d.]+–[\d.]+\)\s+−[\d.]+%\s+slower/);
  assert.match(r.stdout, /REGRESSION: A is slower in json \(exit 1\)/);
  // The verdict is the command's only report: no bake-off overview ranking A and B as two contenders.
  assert.doesNotMatch(r.stdout, /^Overview\b|Winners|ranked by /m, 'no bake-off overview after the verdict');
  const [file] = fs.readdirSync(path.join(results, 'ab')).filter((f) => f.endsWith('.json'));
  assert.ok(file, 'the record is written');
  const record = JSON.parse(fs.readFileSync(path.join(results, 'ab', file), 'utf8'));
  assert.equal(record.regression, true);
  assert.equal(record.verdicts[0].scenario, 'json');
  assert.ok(record.verdicts[0].ci[1] < 1);
  assert.equal(
    record.verdicts[0].rounds,
    (getProfile('quick') as ConnectionProfile).interleave?.rounds,
    "the quick profile's interleaved rounds",
  );
});
