/**
 * Exit codes of the harness CLI, the contract a CI script relies on:
 *
 * | code | meaning |
 * |---:|---|
 * | 0 | every cell measured (or the command did what it was asked) |
 * | 1 | a verification failure, a cell that failed under load (`load-failed`: errors or wrong bodies), or `compare --fail-on-regression` saw a regression |
 * | 2 | usage or bad input: every option-parser error, an unknown name, a bad manifest, a busy port, another run holding the lock, a full or read-only results, temp or output folder |
 * | 3 | cells that failed to build or start, crashed, or escaped their containment (the run itself finished and was saved) |
 * | 130 | interrupted (Ctrl-C, SIGTERM, SIGHUP) |
 * | 70 | an internal error of the harness (a bug: the message has the stack; sysexits' EX_SOFTWARE), never 1 |
 *
 * When a run has both kinds of failure, 3 wins over 1: a broken cell is the more serious fault.
 */

/** The exit codes by meaning. */
export const EXIT = { ok: 0, failed: 1, usage: 2, cellsBroken: 3, interrupted: 130, internal: 70 } as const;

/** Cell statuses that mean the cell was not measured because its server broke. */
const BROKEN = new Set(['build-failed', 'start-failed', 'crashed', 'uncontained', 'error']);
/** Cell statuses that mean the server answered wrongly (before load, or under it). */
const FAILED = new Set(['verify-failed', 'load-failed']);

/**
 * The exit code for a run whose cells ended with `statuses` (CellResult.status values):
 * any of build-failed, start-failed, crashed, uncontained, error → 3; else any verify-failed or load-failed → 1; else 0
 * (ok, skipped and unsupported cells are not failures).
 */
export function exitCodeForStatuses(statuses: readonly string[]): number {
  if (statuses.some((s) => BROKEN.has(s))) return EXIT.cellsBroken;
  if (statuses.some((s) => FAILED.has(s))) return EXIT.failed;
  return EXIT.ok;
}

/** The table above as lines for `--help`. */
export const EXIT_HELP = [
  'Exit codes:',
  '  0    every cell measured (the command succeeded)',
  '  1    a verification failed, a cell failed under load (errors, wrong bodies), or compare --fail-on-regression found a regression',
  '  2    usage or bad input (unknown option or name, bad manifest, busy port, another run holds the lock, a full or read-only folder)',
  '  3    cells failed to build or start, or crashed',
  '  130  interrupted (Ctrl-C)',
  '  70   internal error of the harness (a bug; please report it with the printed stack)',
].join('\n');
