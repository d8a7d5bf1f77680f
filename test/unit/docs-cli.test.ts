// Docs and help agree: every `npx just` command in README's Commands table is a justfile recipe
// and, when the recipe calls the harness, a command in `--help`; every option of README's bench
// options table is in `bench --help` (or the global help); every `export` format in `export
// --help` is in README; every `just` command that the README or a Markdown file under docs/ shows
// anywhere (inline code or a code block) is a recipe, and every option it gives is in that
// command's help; each command's help lists only the exit codes it can return.
// Real CLI processes (test/helpers.ts runCli); nothing starts a server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, runCli } from '../helpers.ts';

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const JUSTFILE = fs.readFileSync(path.join(ROOT, 'justfile'), 'utf8');
/**
 * The README and every Markdown file under docs/ (repository-relative name, text), but docs/dev/:
 * the development notes of earlier rounds, kept as written then (they quote old commands).
 */
const DOCS: { file: string; text: string }[] = [
  { file: 'README.md', text: README },
  ...fs
    .readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md') && !f.startsWith('dev/'))
    .sort()
    .map((f) => ({ file: `docs/${f}`, text: fs.readFileSync(path.join(ROOT, 'docs', f), 'utf8') })),
];

/** The first cells of README's Commands table (rows starting with `npx just`). */
function commandRows(): string[] {
  return README.split('\n')
    .filter((l) => l.startsWith('| `npx just '))
    .map((l) => l.split(' | ')[0] ?? '');
}

/** Recipe name → body lines, from the justfile. */
function recipes(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let cur: string[] | null = null;
  for (const line of JUSTFILE.split('\n')) {
    const m = /^([a-z][\w-]*)(?:\s[^:=]*)?:(?!=)/.exec(line);
    if (m?.[1]) {
      cur = [];
      out.set(m[1], cur);
    } else if (cur && /^\s+\S/.test(line)) cur.push(line);
    else if (!line.trim().startsWith('#')) cur = null;
  }
  return out;
}

/** Command names listed under "Commands:" in a help text. */
function helpCommands(help: string): Set<string> {
  const section = help.split('\nCommands:\n')[1]?.split('\n\n')[0] ?? '';
  return new Set(section.split('\n').map((l) => l.trim().split(/\s/)[0] ?? ''));
}

test('every `npx just` command in the README is a justfile recipe, and a harness command when the recipe calls one', async () => {
  const help = await runCli(['--help']);
  assert.equal(help.code, 0, help.stderr);
  const cli = helpCommands(help.stdout);
  assert.ok(cli.has('bench') && cli.has('leaderboard'), [...cli].join(' '));
  const book = recipes();
  const named = commandRows().flatMap((cell) => [...cell.matchAll(/`npx just ([a-z][\w-]*)/g)].map((m) => m[1] ?? ''));
  assert.ok(named.length >= 15, named.join(' '));
  for (const name of named) {
    const body = book.get(name);
    assert.ok(body, `README names \`npx just ${name}\`, which is not a justfile recipe`);
    for (const line of body) {
      const m = /\{\{harness\}\} ([a-z][\w-]*)/.exec(line);
      if (m?.[1]) assert.ok(cli.has(m[1]), `recipe ${name} calls harness command '${m[1]}', missing from --help`);
    }
    if (cli.has(name)) continue;
    assert.ok(
      body.some((l) => /\{\{harness\}\}|npm |docker|tsc|biome|node /.test(l)),
      `recipe ${name}: neither a harness command nor a tool call`,
    );
  }
});

test("every option in README's bench options table is in `bench --help` (folders: in the global help)", async () => {
  const bench = await runCli(['bench', '--help']);
  const root = await runCli(['--help']);
  assert.equal(bench.code, 0, bench.stderr);
  const table = README.split('Options of `bench` and `bench-all`:')[1]?.split('\n\n')[1] ?? '';
  const options = [
    ...new Set(
      table
        .split('\n')
        .map((l) => l.split(' | ')[0] ?? '')
        .flatMap((cell) => [...cell.matchAll(/`(-{1,2}[a-z][\w-]*)/g)].map((m) => m[1] ?? '')),
    ),
  ];
  assert.ok(options.length >= 20, options.join(' '));
  for (const o of options) {
    const inHelp = new RegExp(`(^|[\\s,])${o}\\b`, 'm');
    assert.ok(
      inHelp.test(bench.stdout) || inHelp.test(root.stdout),
      `README's ${o} is in neither bench --help nor --help`,
    );
  }
});

test('every format of `export --help` is listed in the README export row', async () => {
  const r = await runCli(['export', '--help']);
  assert.equal(r.code, 0, r.stderr);
  const line = r.stdout.split('\n').find((l) => l.includes('--format <format>')) ?? '';
  const formats = (/--format <format>\s+(.+?)\s+\(default/.exec(line)?.[1] ?? '').split(/,\s*|\s+or\s+/);
  assert.deepEqual(formats, ['json', 'csv', 'md', 'html', 'terminal']);
  const row = commandRows().find((c) => c.startsWith('| `npx just export')) ?? '';
  for (const f of formats)
    assert.match(row, new RegExp(`[ |\\\\]${f}[\\\\| \\[]`), `README export row lacks ${f}: ${row}`);
});

test("help texts: each command's exit codes are only those it returns; tools names oha; --rate is k6-rate's arrival rate", async () => {
  const help = async (...cmd: string[]) => {
    const r = await runCli([...cmd, '--help']);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.split('Exit codes:')[1] ?? '';
  };
  for (const cmd of ['bench', 'bench-all', 'selftest'])
    assert.match(await help(cmd), /0 +every cell measured[\s\S]* 3 +cells failed/);
  for (const cmd of ['list', 'new', 'leaderboard', 'export', 'baseline', 'tools', 'doctor']) {
    const codes = await help(cmd);
    assert.doesNotMatch(codes, /every cell measured|verification failed|\n {2}[13] |\n {2}130 /, cmd);
    assert.match(codes, /\n {2}0 +ok\n {2}2 +usage or bad input[\s\S]*\n {2}70 /, cmd);
  }
  const compare = await help('compare');
  assert.match(compare, /\n {2}1 +--fail-on-regression and a cell regressed/);
  assert.doesNotMatch(compare, /every cell measured|\n {2}3 /);
  const verify = await help('verify');
  assert.doesNotMatch(verify, /every cell measured|compare/);
  const tools = await runCli(['tools', '--help']);
  assert.match(tools.stdout, /oha \(cargo build/);
  const bench = await runCli(['bench', '--help']);
  const rate = bench.stdout.slice(bench.stdout.indexOf('--rate'), bench.stdout.indexOf('--rounds'));
  assert.match(rate.replace(/\s+/g, ' '), /k6-rate profile: the constant arrival rate in requests\/s/);
  assert.doesNotMatch(rate, /autocannon/);
});

test('`just bake-off` prints the overview once: one harness process, bench-all --leaderboard, no second leaderboard', async () => {
  const body = recipes().get('bake-off') ?? [];
  const calls = body.filter((l) => l.includes('{{harness}}'));
  assert.equal(calls.length, 1, body.join('\n'));
  assert.match(calls[0] ?? '', /\{\{harness\}\} bench-all --leaderboard "\$@"/);
  const help = await runCli(['bench-all', '--help']);
  assert.match(help.stdout, /--leaderboard\s+after the run, write results\/LEADERBOARD\.md/);
});

/** Every `just <recipe> …` a document shows (inline code or a code block) with the options it gives. */
function invocations(doc: string): { recipe: string; options: string[]; text: string }[] {
  const spans = [
    ...[...doc.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].flatMap((m) => (m[1] ?? '').split('\n')),
    ...[...doc.replace(/```[a-z]*\n[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? ''),
  ];
  const out: { recipe: string; options: string[]; text: string }[] = [];
  for (const span of spans)
    for (const part of span.split(/&&|;|\s\|\s/)) {
      const m = /(?:^|\bnpx )just ([a-z][\w-]*)(.*)$/.exec(part.trim()); // not prose such as "the just recipes"
      if (!m?.[1]) continue;
      const options = [...(m[2] ?? '').matchAll(/(?<![\w-])(--[a-z][\w-]*)/g)].map((o) => o[1] ?? '');
      out.push({ recipe: m[1], options, text: part.trim() });
    }
  return out;
}

test('every option the README or docs/ give a `just` command, anywhere in them, is in that command’s help', async () => {
  const book = recipes();
  const helps = new Map<string, string>();
  const root = await runCli(['--help']);
  const helpOf = async (cmd: string) => {
    if (!helps.has(cmd)) {
      const r = await runCli([cmd, '--help']);
      assert.equal(r.code, 0, `${cmd} --help: ${r.stderr}`);
      helps.set(cmd, r.stdout);
    }
    return helps.get(cmd) ?? '';
  };
  const calls = DOCS.flatMap((d) => invocations(d.text).map((c) => ({ ...c, file: d.file })));
  const withOptions = calls.filter((c) => c.options.length > 0);
  const fromReadme = withOptions.filter((c) => c.file === 'README.md');
  assert.ok(fromReadme.length >= 10, `only ${fromReadme.length} README invocations with options`);
  assert.ok(withOptions.length >= 20, `only ${withOptions.length} invocations with options in README and docs/`);
  let checked = 0;
  for (const c of calls) {
    const body = book.get(c.recipe);
    assert.ok(body, `${c.file} shows \`just ${c.recipe}\`, which is not a justfile recipe: ${c.text}`);
    if (c.options.length === 0) continue;
    const harness = body.map((l) => /\{\{harness\}\} ([a-z][\w-]*)/.exec(l)?.[1]).find(Boolean);
    const script = body.map((l) => /node (scripts\/[\w/-]+\.ts)/.exec(l)?.[1]).find(Boolean);
    let known: string;
    if (harness) known = `${await helpOf(harness)}\n${root.stdout}`;
    else if (script) {
      const r = spawnSync(process.execPath, [path.join(ROOT, script), '--help'], { encoding: 'utf8' });
      assert.equal(r.status, 0, `${script} --help: ${r.stderr}`);
      known = r.stdout;
    } else continue; // a tool call (check, test, compose): its options are the tool's
    for (const o of c.options) {
      assert.match(
        known,
        new RegExp(`(^|[\\s,'"\`])${o}\\b`, 'm'),
        `${c.file}'s \`${c.text}\`: ${o} is not in the help of ${harness ?? script}`,
      );
      checked++;
    }
  }
  assert.ok(checked >= 40, `only ${checked} options checked`);
});
