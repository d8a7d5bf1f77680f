/**
 * The `tools` and `doctor` commands: install or build every optional tool it can, or only list
 * the tools and what a missing one costs (drivers/tools.ts; `doctor` = `tools --check`).
 */
import type { Command } from 'commander';
import { K6_VERSION } from '../drivers/k6.ts';
import { doctorReport, installTools } from '../drivers/tools.ts';
import { helpFooter, SHORT_EXIT_HELP } from './command-kit.ts';

/** Registers `tools` on `program`. */
export function registerTools(program: Command): void {
  const c = program
    .command('tools')
    .description(
      `install or build every optional tool it can: k6 v${K6_VERSION} (Go build into the tool cache), oha (cargo build into the tool cache; the capacity profile's open-loop driver), and as root Debian's wrk and chromium; otherwise print the command`,
    )
    .option('--check', 'only list the tools and what a missing one costs (= doctor)')
    .action((opts: { check?: boolean }) => {
      if (opts.check) {
        process.stdout.write(doctorReport());
        return;
      }
      const r = installTools({ log: (l) => process.stderr.write(`${l}\n`) });
      process.stdout.write(`${r.lines.join('\n')}\n`);
    });
  helpFooter(c, ['npx just tools'], SHORT_EXIT_HELP);
}

/** Registers `doctor` on `program`. */
export function registerDoctor(program: Command): void {
  const c = program
    .command('doctor')
    .description(
      'each optional tool with its version; for a missing one what it costs (skipped or flagged cells) and how to get it',
    )
    .action(() => {
      process.stdout.write(doctorReport());
    });
  helpFooter(c, ['npx just doctor'], SHORT_EXIT_HELP);
}
