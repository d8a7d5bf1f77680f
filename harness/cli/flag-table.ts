/**
 * A command's flags as one table: each row declares a flag once (commander's spec and help, the
 * zod schema of its raw value, the typed field it fills), and the command's commander options
 * (`addFlags`), its zod schema (`flagSchema`) and its typed values (`FlagValues`, the schema's
 * `z.infer`) are derived from the rows.
 *
 * A row's raw value is commander's attribute of its long flag (`--slo-p99` → `sloP99`, `--no-variants`
 * → `variants`), the string typed or the default string its help shows; its schema turns that into
 * the typed value, with a message naming the flag when the value is bad (core/option-values.ts).
 * Two rows may fill one field (an old name and its new one): the first row in the table with a
 * value wins. The first bad flag, in the table's order, is the one reported.
 */
import { type Command, Option } from 'commander';
import { z } from 'zod';

/** One flag of a command: how commander reads it, and what its value becomes. */
export interface Flag<F extends string = string, S extends z.ZodType = z.ZodType> {
  /** Commander's flags, e.g. `-s, --scenario <names>`, `--no-variants`. */
  flags: string;
  /** The help line. */
  help: string;
  /** Commander's argument parser (its errors are commander's "option … argument … is invalid", exit 2). */
  parse?: (value: string, previous: never) => unknown;
  /** Commander's default, as the help shows it. */
  default?: string;
  /** Left out of the help (an old name). */
  hidden?: boolean;
  /** The `--no-…` counterpart registered right after the flag (same attribute): its help line. */
  negate?: string;
  /** The raw value (commander's attribute) → the typed value. */
  schema: S;
  /** The typed field the value fills. */
  field: F;
}

/** A row of a flag table, its field and schema kept in its type (so that `FlagValues` can read them). */
export function flag<const F extends string, S extends z.ZodType>(row: Flag<F, S>): Flag<F, S> {
  return row;
}

/** The typed values of a flag table: a field is required when its schema never yields undefined. */
export type FlagValues<T extends readonly Flag[]> = {
  [R in T[number] as undefined extends z.output<R['schema']> ? never : R['field']]: z.output<R['schema']>;
} & {
  [R in T[number] as undefined extends z.output<R['schema']> ? R['field'] : never]?: Exclude<
    z.output<R['schema']>,
    undefined
  >;
};

/** Commander's attribute of a row (`--slo-p99 <ms>` → `sloP99`). */
export function attributeOf(row: Flag): string {
  return new Option(row.flags).attributeName();
}

/** Registers the table's flags on `c`, in the table's order (the help's). */
export function addFlags(c: Command, table: readonly Flag[]): Command {
  for (const row of table) {
    const o = new Option(row.flags, row.help);
    if (row.parse) o.argParser(row.parse as (value: string, previous: unknown) => unknown);
    if (row.default !== undefined) o.default(row.default);
    c.addOption(o.hideHelp(row.hidden === true));
    if (row.negate !== undefined) {
      const long = o.long ?? row.flags;
      c.addOption(new Option(long.replace(/^--/, '--no-'), row.negate).hideHelp(row.hidden === true));
    }
  }
  return c;
}

/** The zod schema of a table: commander's raw values (by attribute) → the typed values (absent fields left out). */
export function flagSchema<const T extends readonly Flag[]>(table: T): z.ZodType<FlagValues<T>> {
  const shape: Record<string, z.ZodType> = {};
  for (const row of table) shape[attributeOf(row)] ??= row.schema;
  return z.object(shape).transform((raw) => {
    const out: Record<string, unknown> = {};
    for (const row of table) {
      const v = raw[attributeOf(row)];
      if (v !== undefined && !(row.field in out)) out[row.field] = v;
    }
    return out as FlagValues<T>;
  });
}
