/**
 * The `bench` and `bench-all` commands: their help, and their action: the options (declared in
 * cli/bench-flags.ts) parsed (`parseBenchOptions`), the names, profile and `--profile-cpu` checked
 * (cli/bench.ts `precheckBench`, cli/why.ts `precheckCpuProfile`), all before the machine lock
 * (cli/command-kit.ts `takeMachine`); then the run (cli/bench.ts `bench`) and, with
 * `--profile-cpu`, the attribution of its profiled windows (cli/why.ts `recordProfiled`).
 */
import type { Command } from 'commander';
import { EXIT_HELP } from '../core/exit-codes.ts';
import { bench, precheckBench, withRunEnd } from './bench.ts';
import { benchFlags, parseBenchOptions } from './bench-flags.ts';
import { type CliContext, helpFooter, takeMachine } from './command-kit.ts';
import { precheckCpuProfile, recordProfiled } from './why.ts';

/**
 * The action of bench (`names`: the contenders) and bench-all (`names` empty: every one): see the
 * module comment. Every check before the lock is exit 2 at once; with --json its run-end event too.
 */
async function benchAction(ctx: CliContext, names: string[], raw: Record<string, unknown>): Promise<void> {
  const g = ctx.globals();
  const note = (l: string) => {
    if (raw.quiet !== true) process.stderr.write(`${l}\n`);
  };
  const { opts, profile } = withRunEnd({ json: raw.json === true, quiet: raw.quiet === true }, () => {
    const o = parseBenchOptions(raw, note);
    const p = precheckBench(g, names, o);
    precheckCpuProfile(o);
    return { opts: o, profile: p };
  });
  await takeMachine({
    driverProfile: profile,
    port: opts.port,
    host: opts.host,
    url: opts.url,
    wait: opts.wait,
    command: ctx.argv,
  });
  const ranked = await bench(g, names, opts, ctx.argv, ctx.signal);
  await recordProfiled(g, opts, ranked, ctx.signal);
}

/** Registers `bench <contender...>` on `program`. */
export function registerBench(program: Command, ctx: CliContext): void {
  const c = benchFlags(
    program.command('bench').description('verify and measure one or more contenders').argument('<contender...>'),
  );
  c.action((names: string[], raw: Record<string, unknown>) => benchAction(ctx, names, raw));
  helpFooter(
    c,
    [
      'npx just bench fastify',
      'npx just bench node-http express --scenario json,echo --profile quick',
      'npx just bench postgraphile-express --scenario graphql-users --rounds 5',
      'npx just bench hasura --url http://127.0.0.1:18090',
    ],
    EXIT_HELP,
  );
}

/** Registers `bench-all` on `program`. */
export function registerBenchAll(program: Command, ctx: CliContext): void {
  const c = benchFlags(program.command('bench-all').description('verify and measure every contender'), true);
  c.action((raw: Record<string, unknown>) => benchAction(ctx, [], raw));
  helpFooter(c, ['npx just bench-all', 'npx just bench-all --profile pipelined --wait'], EXIT_HELP);
}
