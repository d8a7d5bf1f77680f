/**
 * User-facing errors of the harness.
 *
 * A `UserError` carries a message that says what was wrong and what to do; the CLI prints it
 * without a stack trace and exits with `exitCode` (2 by default: bad input).
 */
export class UserError extends Error {
  exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = 'UserError';
    this.exitCode = exitCode;
  }
}

/** Throws a UserError for an unknown name, listing the valid ones. */
export function unknownName(kind: string, name: string, valid: string[]): never {
  throw new UserError(`unknown ${kind} '${name}'. Valid ${kind}s: ${valid.join(', ') || '(none)'}`);
}
