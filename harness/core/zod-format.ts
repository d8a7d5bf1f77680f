/**
 * Formats a zod error as lines of `field: what was expected`, for messages that name the file,
 * the field and what was expected.
 */
import type { ZodError } from 'zod';

export function formatZodError(err: ZodError): string {
  return err.issues.map((i) => `  - ${i.path.length ? i.path.join('.') : '(top level)'}: ${i.message}`).join('\n');
}
