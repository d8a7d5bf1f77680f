/**
 * User-facing errors of the harness.
 *
 * A `UserError` carries a message that says what was wrong and what to do; the CLI prints it
 * without a stack trace and exits with `exitCode` (2 by default: bad input; see exit-codes.ts).
 */
import { EXIT } from './exit-codes.ts';
import { didYouMean } from './suggest.ts';

export class UserError extends Error {
  exitCode: number;
  constructor(message: string, exitCode: number = EXIT.usage) {
    super(message);
    this.name = 'UserError';
    this.exitCode = exitCode;
  }
}

/**
 * Throws a UserError for an unknown name: "unknown contender 'fastfy'. Did you mean 'fastify'?
 * Valid contenders: …" (the suggestion only when one is close; see suggest.ts).
 */
export function unknownName(kind: string, name: string, valid: string[]): never {
  throw new UserError(
    `unknown ${kind} '${name}'.${didYouMean(name, valid)} Valid ${kind}s: ${valid.join(', ') || '(none)'}`,
  );
}
