// CLI conventions a CI can trust (issues 13 and 14): every option-parser error exits 2 (never 1,
// which means "a verification failed or a regression"), --version, a correct usage line and
// examples in every command's help, "did you mean" for names, a contender's supported scenarios,
// loopback-only --host/--url, --node's supported majors, and a busy port refused before any run
// folder exists. None of these starts a server or sends load.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { FIXTURES, ROOT, runCli, tmpDir } from '../helpers.ts';
import { supportedMajors } from '../../harness/lifecycle/node-runtime.ts';
import { acquireRunLock } from '../../harness/lifecycle/lock.ts';

const noStack = (s: string) => assert.doesNotMatch(s, /\n\s+at /, 'no stack trace');

test('every option-parser error exits 2 with a message, never 1', async () => {
  const cases: [string[], RegExp][] = [
    [['bench', 'fastify', '--bogus'], /error: unknown option '--bogus'/],
    [
      ['compare', 'a', '--fail-on-regresion'],
      /unknown option '--fail-on-regresion'\n\(Did you mean --fail-on-regression\?\)/,
    ],
    [['bench', 'fastify', '--profile'], /error: option '-p, --profile <name>' argument missing/],
    [['bench'], /error: missing required argument 'contender'/],
    [['list', 'extra'], /error: too many arguments for 'list'/],
    [['benhc'], /error: unknown command 'benhc'\n\(Did you mean bench\?\)/],
    [['bench', 'fastify', '--port', 'abc'], /--port must be an integer from 1 to 65535, got 'abc'/],
    [['bench', 'fastify', '--url', 'ftp://127.0.0.1:21'], /--url takes http:\/\/ or https:\/\/ only, got 'ftp:'/],
    [['bench', 'fastify', '--url', 'http://example.com'], /--url must point at this machine/],
    [['bench', 'fastify', '--host', '0.0.0.0'], /--host must be a loopback address/],
    [['verify', '--host', '192.168.1.10'], /--host must be a loopback address/],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
    assert.match(r.stderr, /run with --help for usage, examples and exit codes/);
    noStack(r.stderr);
  }
});

test('--version prints the package version and the git commit; --help exits 0', async () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  for (const flag of ['--version', '-V']) {
    const r = await runCli([flag]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(`^${pkg.version.replaceAll('.', '\\.')} \\(commit ([0-9a-f]{7,}|unknown)(, modified)?\\)\\n$`),
    );
  }
  const h = await runCli(['--help']);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /^Usage: just <command> \[options\]/);
  assert.match(h.stdout, /Exit codes:\n {2}0 .*\n {2}1 .*\n {2}2 .*\n {2}3 .*\n {2}130 /);
});

test('each command has a correct usage line and examples in its help', async () => {
  const usage: Record<string, string> = {
    bench: 'just bench [options] <contender...>',
    'bench-all': 'just bench-all [options]',
    verify: 'just verify [options] [contender...]',
    compare: 'just compare [options] [run-a] [run-b]',
    baseline: 'just baseline [options] <name> [run]',
    export: 'just export [options]',
    list: 'just list [options]',
    new: 'just new [options] <name>',
    leaderboard: 'just leaderboard [options]',
  };
  for (const [cmd, line] of Object.entries(usage)) {
    const r = await runCli([cmd, '--help']);
    assert.equal(r.code, 0, `${cmd}: ${r.stderr}`);
    assert.ok(r.stdout.startsWith(`Usage: ${line}\n`), `${cmd}: ${r.stdout.split('\n')[0]}`);
    assert.match(r.stdout, new RegExp(`\\nExamples:\\n {2}npx just ${cmd}`), cmd);
    assert.match(r.stdout, /Exit codes:/, cmd);
  }
  const b = await runCli(['bench', '--help']);
  assert.match(b.stdout, /--wait +when another run holds this machine/);
});

test('unknown contender, scenario and profile: did you mean, and the valid list (exit 2)', async () => {
  const cases: [string[], RegExp][] = [
    [['bench', 'fastfy'], /unknown contender 'fastfy'\. Did you mean 'fastify'\? Valid contenders: .*express.*fastify/],
    [
      ['bench', 'fastify', '--scenario', 'jsno'],
      /unknown scenario 'jsno'\. Did you mean 'json'\? Valid scenarios: ping, json/,
    ],
    [
      ['bench', 'fastify', '--profile', 'quik'],
      /unknown profile 'quik'\. Did you mean 'quick'\? Valid profiles: .*quick/,
    ],
    [['verify', 'nodehttp'], /unknown contender 'nodehttp'\. Did you mean 'node-http'\?/],
    [['bench', 'zzzzzzzz'], /unknown contender 'zzzzzzzz'\. Valid contenders: /],
  ];
  for (const [args, message] of cases) {
    const r = await runCli([...args, '--wait']);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    noStack(r.stderr);
  }
});

test('names are checked before the machine lock: with a run in progress, a typo says "did you mean" and --wait does not wait', async () => {
  const file = path.join(tmpDir('lock-names'), 'run.lock');
  const held = await acquireRunLock({ runId: 'test-holder', file, command: ['bench-all'] });
  // Safety net only: if the CLI waited for the lock, release it so the test ends (and fails below).
  // Late enough that 9 CLI calls on a slow machine finish first: released early, the last call
  // would take the lock and start a real benchmark.
  const safety = setTimeout(() => held.release(), 250_000);
  try {
    const cases: [string[], RegExp][] = [
      [['bench', 'fastfy'], /unknown contender 'fastfy'\. Did you mean 'fastify'\?/],
      [['bench', 'fastify', '--scenario', 'jsno'], /unknown scenario 'jsno'\. Did you mean 'json'\?/],
      [['bench-all', '--profile', 'quik'], /unknown profile 'quik'\. Did you mean 'quick'\?/],
      [['verify', 'nodehttp'], /unknown contender 'nodehttp'\. Did you mean 'node-http'\?/],
    ];
    for (const [args, message] of cases)
      for (const wait of [[], ['--wait']]) {
        const r = await runCli([...args, ...wait], { BENCH_LOCK_FILE: file });
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, message);
        assert.doesNotMatch(r.stderr, /another bake-off run holds this machine|waiting for the run lock/);
        noStack(r.stderr);
      }
    // A valid name still meets the lock.
    const busy = await runCli(['bench', 'fastify'], { BENCH_LOCK_FILE: file });
    assert.equal(busy.code, 2, busy.stderr);
    assert.match(busy.stderr, /another bake-off run holds this machine/);
  } finally {
    clearTimeout(safety);
    held.release();
  }
});

test('--rounds N sets the rounds; --trials N, its old name, still works and says so; help shows --rounds only', async () => {
  const bad = await runCli(['bench', 'fastify', '--rounds', '0']);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--rounds must be an integer from 1 to 50, got '0'/);
  assert.doesNotMatch(bad.stderr, /old name/);
  const old = await runCli(['bench', 'fastify', '--trials', '0']);
  assert.equal(old.code, 2, old.stderr);
  assert.match(old.stderr, /--trials is the old name of --rounds .*: use --rounds/);
  assert.match(old.stderr, /--trials must be an integer from 1 to 50, got '0'/);
  noStack(old.stderr);
  const help = await runCli(['bench', '--help']);
  assert.match(help.stdout, /--rounds <n> +rounds: solo measured windows per cell/);
  assert.doesNotMatch(help.stdout, /--trials/);
});

test('a contender that supports none of the scenarios: the error lists what it supports', async () => {
  const r = await runCli(['bench', 'fastify', '--scenario', 'graphql-users']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /fastify support\(s\) none of graphql-users\. fastify supports: ping, json, echo, users, post, fanout/,
  );
});

test('--node 99 lists the supported majors and changes no pin', async () => {
  const pins = path.join(ROOT, 'harness', 'lifecycle', 'node-versions.json');
  const before = fs.readFileSync(pins, 'utf8');
  const r = await runCli(['bench', 'fastify', '--node', '99']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`Supported majors: ${supportedMajors().join(', ')}`));
  assert.doesNotMatch(r.stderr, /npm|\.log/);
  assert.equal(fs.readFileSync(pins, 'utf8'), before);
});

test('a busy fixed port is refused before any run folder is created', async () => {
  const blocker = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => blocker.once('listening', r));
  const port = (blocker.address() as net.AddressInfo).port;
  try {
    const results = tmpDir('busy');
    const r = await runCli([
      '--contenders-dir',
      FIXTURES,
      '--results-dir',
      results,
      'bench',
      'crashy',
      '--profile',
      'smoke',
      '--scenario',
      'ping',
      '--port',
      String(port),
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`port ${port} on 127.0.0.1 is already in use by pid ${process.pid} \\(`));
    assert.equal(fs.existsSync(path.join(results, 'runs')), false, 'no run folder');
    noStack(r.stderr);
  } finally {
    blocker.close();
  }
});

test('the just recipes are quiet: an error is not preceded by the raw command', async () => {
  const justfile = fs.readFileSync(path.join(ROOT, 'justfile'), 'utf8');
  const loud = justfile.split('\n').filter((l) => /^ {4}\{\{harness\}\}/.test(l));
  assert.deepEqual(loud, [], 'every harness line starts with @');
});
