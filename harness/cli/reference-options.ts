/**
 * The options of `reference` (cli/reference.ts), typed at the edge: the design (`--design`,
 * `--warmup`, `--windows`, `--window`, `--processes`, `--connections`; analysis/reference-stats.ts
 * `ReferenceDesign`, defaults REFERENCE_DEFAULTS there) and the scenarios. Bad values throw UserError (exit 2) naming the flag.
 */
import { z } from 'zod';
import { REFERENCE_DEFAULTS, type ReferenceDesign } from '../analysis/reference-stats.ts';
import { getProfile } from '../core/profiles.ts';
import { defined, numeric, parseWith, range } from '../core/option-values.ts';

export type { ReferenceDesign } from '../analysis/reference-stats.ts';

/** The options of `reference`, typed: the scenarios and the run's design. */
export interface ReferenceOpts {
  scenario?: string[];
  design: ReferenceDesign;
  quiet?: boolean;
  wait?: boolean;
}

const quickConnections = () => {
  const quick = getProfile('quick');
  return 'connections' in quick ? quick.connections : 100;
};

const REFERENCE_DESIGN = z.object({
  design: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === 'rotation' || v === 'solo') return v ?? 'rotation';
      ctx.addIssue({ code: 'custom', message: `--design must be rotation or solo, got '${v}'` });
      return z.NEVER;
    }),
  warmup: numeric([range('--warmup', 0, 600, false)]),
  windows: numeric([range('--windows', 1, 50)]),
  window: numeric([range('--window', 1, 600)]),
  processes: numeric([range('--processes', 1, 20)]),
  connections: numeric([range('--connections', 1, 10_000)]),
});

/**
 * The reference's design from the raw `--design`, `--warmup`, `--windows`, `--window`,
 * `--processes` and `--connections` (defaults: REFERENCE_DEFAULTS of the design, the quick
 * profile's connections). Throws UserError.
 */
export function referenceDesign(raw: Record<string, unknown>): ReferenceDesign {
  const o = parseWith(REFERENCE_DESIGN, raw);
  const d = REFERENCE_DEFAULTS[o.design];
  return {
    warmupS: o.warmup ?? d.warmupS,
    windows: o.windows ?? d.windows,
    windowS: o.window ?? d.windowS,
    processes: o.processes ?? d.processes,
    connections: o.connections ?? quickConnections(),
    order: o.design === 'rotation' ? 'rotation' : 'ABBA',
  };
}

/** The options of `reference` from commander's raw values; throws UserError naming the first bad option. */
export function parseReferenceOptions(raw: Record<string, unknown>): ReferenceOpts {
  const design = referenceDesign(raw);
  const o = parseWith(
    z.object({
      scenario: z.array(z.string()).optional(),
      quiet: z.boolean().optional(),
      wait: z.boolean().optional(),
    }),
    raw,
  );
  return { design, ...defined(o) };
}
