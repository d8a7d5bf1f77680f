/**
 * What every command module of the CLI shares (cli.ts builds the program from them): the context
 * a command runs in (the global folders, the interrupt signal, the command line), the footer of
 * examples and exit codes in each command's help, and the gate before a command that starts
 * servers on the pinned cores (`--wait`, the ranking driver, a busy fixed port, the machine lock).
 *
 * A command's action runs its steps in this order: its options parsed into typed values
 * (cli/options.ts), its names and options checked against the contenders, scenarios and profiles,
 * then `takeMachine`, then the work. So a typo or a bad value is exit 2 at once, never a wait for
 * the lock.
 */
import type { Command } from 'commander';
import { UserError } from '../core/errors.ts';
import type { Profile } from '../core/profiles.ts';
import { ensureNativeDriver } from '../drivers/tools.ts';
import { acquireRunLock } from '../lifecycle/lock.ts';
import { describePortHolder, isPortFree } from '../lifecycle/ports.ts';

/** The global options' folders, resolved to absolute paths. */
export interface Globals {
  contendersDir: string;
  resultsDir: string;
  scenariosDir: string;
}

/** What a command's action gets from the program: the folders, Ctrl-C, and the arguments it was run with. */
export interface CliContext {
  /** The global folders (read when the action runs, after commander parsed them). */
  globals: () => Globals;
  /** Aborted on SIGINT, SIGTERM or SIGHUP. */
  signal: AbortSignal;
  /** The command line after `cli.ts` (recorded as a run's command). */
  argv: string[];
}

/** The exit codes of a command that reads or renders only: ok, bad input, a bug. */
export const SHORT_EXIT_HELP = [
  'Exit codes:',
  '  0    ok',
  '  2    usage or bad input (unknown option or name, a full or read-only folder)',
  '  70   internal error of the harness (a bug; please report it with the printed stack)',
].join('\n');

/** Adds the help's footer: the examples, one a line, then the command's exit codes. Returns `cmd`. */
export function helpFooter(cmd: Command, examples: string[], exitHelp: string): Command {
  return cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}\n\n${exitHelp}\n`);
}

/** The help line of `--wait`. */
export const WAIT_HELP = 'when another run holds this machine, wait for it to finish instead of refusing';

/** Adds `--wait` (the last option of every command that takes the machine lock). Returns `cmd`. */
export function waitOption(cmd: Command): Command {
  return cmd.option('--wait', WAIT_HELP);
}

/**
 * The last steps before a command starts servers, after its names and options were checked:
 * `driverProfile`'s ranking driver installed now as root, else a UserError unless --driver names
 * another (drivers/tools.ts `ensureNativeDriver`); a busy fixed `port` on `host` refused with a
 * UserError (no run folder yet; not with `url`, an external target); then the machine lock
 * (lifecycle/lock.ts; `wait`: queue for it instead of refusing with a UserError). The lock is
 * released when the process exits (cli.ts).
 */
export async function takeMachine(o: {
  driverProfile?: Pick<Profile, 'name' | 'driver'>;
  port?: number;
  host?: string;
  url?: string;
  wait?: boolean;
  command: string[];
}): Promise<void> {
  const log = (l: string) => process.stderr.write(`${l}\n`);
  if (o.driverProfile) ensureNativeDriver(o.driverProfile, log);
  const host = o.host ?? '127.0.0.1';
  if (o.port !== undefined && !o.url && !(await isPortFree(o.port, host))) {
    const who = describePortHolder(o.port);
    throw new UserError(
      `port ${o.port} on ${host} is already in use${who ? ` by ${who}` : ''}. Stop that process or choose another port (--port).`,
    );
  }
  await acquireRunLock({ runId: null, wait: !!o.wait, command: o.command, log });
}
