/**
 * The `verify` command: the contract check only, no load (cli/bench.ts `verify`, the scheduler's
 * verify mode). The contenders named are checked before the machine lock, then the servers start
 * one group at a time on the pinned cores.
 */
import type { Command } from 'commander';
import { load, verify } from './bench.ts';
import { type CliContext, helpFooter, takeMachine, waitOption } from './command-kit.ts';
import { parseHost } from './options.ts';
import { selectContenders } from '../scheduler/plan.ts';

/** The exit codes verify can return. */
const VERIFY_EXIT_HELP = [
  'Exit codes:',
  '  0    every contender passed its contract checks',
  '  1    a verification failed',
  '  2    usage or bad input (unknown option or name, bad manifest, another run holds the lock, a full or read-only folder)',
  '  3    a contender failed to build or start, or crashed',
  '  130  interrupted (Ctrl-C)',
  '  70   internal error of the harness (a bug; please report it with the printed stack)',
].join('\n');

/** Registers `verify [contender...]` on `program`. */
export function registerVerify(program: Command, ctx: CliContext): void {
  const c = program
    .command('verify')
    .description('contract check only, no load')
    .argument('[contender...]')
    .option('--host <host>', 'loopback listen address (127.0.0.1 or ::1)', parseHost, '127.0.0.1');
  waitOption(c).action(async (names: string[], opts: { host: string; wait?: boolean }) => {
    const g = ctx.globals();
    selectContenders(load(g).manifests, names);
    await takeMachine({ wait: opts.wait, command: ctx.argv });
    process.exitCode = await verify(g, names, opts.host, ctx.signal);
  });
  helpFooter(c, ['npx just verify', 'npx just verify fastify hono'], VERIFY_EXIT_HELP);
}
