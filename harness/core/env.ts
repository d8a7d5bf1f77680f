/**
 * The harness's environment variables, checked once at the edge (cli.ts, before any lock, run
 * folder or process): an empty folder, a non-numeric, negative or absurd number, or an unknown
 * mode is a UserError (exit 2) naming the variable, what it must be and what it got. Each
 * variable's reader (core/paths.ts, core/profiles.ts `contenderLimits`, lifecycle/cgroups.ts, the
 * drivers) still reads `process.env`; this module only refuses what they would misread.
 */
import { z } from 'zod';
import { UserError } from './errors.ts';

/** A whole number within [least, most]; its text as given. */
const whole = (least: number, most: number, unit: string) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number of ${unit}`)
    .refine((v) => Number(v) >= least && Number(v) <= most, `must be ${least}–${most} ${unit}`);

/** A folder or file path: not empty (an empty value would mean the current folder). */
const nonEmptyPath = z.string().min(1, 'must be a path, not empty (unset it for the default)');

/**
 * The checked variables and their rules. Drivers' binaries (BENCH_WRK, BENCH_K6, BENCH_OHA) may be
 * empty: that turns the driver off; so may BENCH_LOCK_FILE and BENCH_TOOLS_DIR: their defaults. Limits: 16 MiB up to 1 TiB of memory; 8 up to 4,194,304 tasks
 * (Linux's largest pid_max).
 */
const RULES: Record<string, z.ZodType<string>> = {
  BENCH_RESULTS_DIR: nonEmptyPath,
  BENCH_CONTENDERS_DIR: nonEmptyPath,
  BENCH_SCENARIOS_DIR: nonEmptyPath,
  BENCH_MEMORY_MAX_MIB: whole(16, 2 ** 20, 'MiB'),
  BENCH_PIDS_MAX: whole(8, 4_194_304, 'tasks'),
  BENCH_CGROUP: z.enum(['off', 'v1'], {
    message: "must be 'off' or 'v1' (unset: every cgroup version this machine has)",
  }),
  BENCH_NO_PIN: z.enum(['0', '1'], { message: "must be '1' (no pinning) or '0'" }),
  BENCH_BUILD_OHA: z.enum(['0', '1'], { message: "must be '0' (do not build oha) or '1'" }),
};

/**
 * Checks every variable of RULES that is set in `env` (default: this process's). Throws a
 * UserError for the first bad one: "BENCH_MEMORY_MAX_MIB must be 16–1048576 MiB; got '1e30'".
 */
export function checkEnvironment(env: NodeJS.ProcessEnv = process.env): void {
  for (const [name, rule] of Object.entries(RULES)) {
    const v = env[name];
    if (v === undefined) continue;
    const r = rule.safeParse(v);
    if (!r.success)
      throw new UserError(`${name} ${r.error.issues[0]?.message ?? 'is not valid'}; got '${v}'. Fix or unset it.`);
  }
}
