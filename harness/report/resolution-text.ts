/**
 * The self-test's part of the report's how-sure line: this
 * machine's resolution as the newest `just selftest` record measured it (store/selftest-store.ts)
 * — its false-difference rate between identical copies with its 95% CI (the one that counts the
 * pairs' dependence when the summary has it, `clustered`; else the binomial one, said to be too
 * narrow) and whether its upper end certifies ≤ 8%, its power
 * at a 10% difference, its median minimum detectable difference, its main run id and its age —
 * or, with no record, how to get one.
 */
import { type MachineFacts, machineName, sameMachine } from '../core/machine.ts';
import type { SelftestSummary } from '../store/selftest-store.ts';

/** A share 0–1 as a percentage: one decimal below 10%, else whole ("4.9%", "15%", "93%"). */
export function pctText(x: number): string {
  const p = 100 * x;
  return `${p < 10 ? p.toFixed(1) : p.toFixed(0)}%`;
}

/** A 95% CI of a share as "10–20%", bounds rounded outward (README: a printed interval contains its figure). */
export function ciText([lo, hi]: [number, number]): string {
  const step = (x: number) => (100 * x < 10 ? 0.1 : 1);
  const f = (x: number, round: (n: number) => number) => {
    const st = step(x);
    // 1e-9 absorbs binary error (100 × 0.14 = 14.000000000000002 must not round up to 15).
    const v = round((100 * x) / st + (round === Math.ceil ? -1e-9 : 1e-9)) * st;
    return st < 1 ? v.toFixed(1) : v.toFixed(0);
  };
  return `${f(lo, Math.floor)}–${f(hi, Math.ceil)}%`;
}

/** An age in ms as "35 min", "5 h", "3 days" (floor); negative ages (a clock ahead) read "0 min". */
export function ageText(ms: number): string {
  const min = Math.max(0, Math.floor(ms / 60_000));
  if (min < 120) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h`;
  return `${Math.floor(h / 24)} days`;
}

/** What the line says without a record. */
export const SELFTEST_NOT_RUN = 'self-test: not run (`npx just selftest`, ~35 min)';

/**
 * "self-test `RUN` (2 days old): 15% false differences between identical servers (95% CI
 * 10–20%, 225 pairs; target ≤ 5%), 93% power at a 10% difference (measured 12.4%), median
 * minimum detectable difference 10%" — the difference the planted copies really had in the run,
 * when the record has it; SELFTEST_NOT_RUN for null. `now` dates the age. `tableHosts`: the
 * machines of the tables beside it; when the self-test ran on none of them (core/machine.ts
 * `sameMachine`: CPU, kernel, cores, CPU identity), the line says on which machine it ran
 * ("… (2 days old, on another machine than these tables: AMD EPYC 7B13 (…))"), since this VM's
 * host, and its noise, changes between days.
 */
export function selftestText(s: SelftestSummary | null, now: Date, tableHosts: MachineFacts[] = []): string {
  if (!s) return SELFTEST_NOT_RUN;
  const here = s.machine;
  const elsewhere =
    here && tableHosts.length && !tableHosts.some((m) => sameMachine(m, here))
      ? `, on another machine than these tables: ${machineName(here)}`
      : '';
  const fd = s.falseDifference;
  const k = fd.clustered;
  const ci = (c: [number, number] | null) =>
    k
      ? `95% CI ${ciText(k.ci95)} over ${fd.pairs} pairs that share copies and tables${k.effectivePairs !== null ? ` (worth at least about ${Math.round(k.effectivePairs)} independent ones; a conservative cluster bootstrap)` : ''}; `
      : c
        ? `95% CI ${ciText(c)} over ${fd.pairs} pairs taken as independent, though they share copies and tables (too narrow); `
        : `${fd.pairs} pairs; `;
  const certified = k
    ? k.ci95[1] <= 0.08
      ? '; upper end ≤ 8%: met'
      : `; upper end ≤ 8%: not met${k.runsToCertify8 !== null ? ` (about ${k.runsToCertify8} runs of this design would certify it at this rate)` : ''}`
    : '';
  const age = ageText(now.getTime() - Date.parse(s.at));
  const mdd = s.medianMdd !== null ? `, median minimum detectable difference ${pctText(s.medianMdd)}` : '';
  const measured = s.measured10 !== null ? ` (measured ${pctText(s.measured10)})` : '';
  return `self-test \`${s.mainRun}\` (${age} old${elsewhere}): ${pctText(fd.rate)} false differences between identical servers (${ci(fd.ci95)}target ≤ 5%${certified}), ${pctText(s.power10.rate)} power at a 10% difference${measured}${mdd}`;
}

/**
 * The self-test in the confidence line, short: "4.0% false differences (target ≤ 5%), another
 * machine, 2 days old" ("this machine" when it ran on one of `tableHosts`' machines, by
 * core/machine.ts `sameMachine`; nothing when they are unknown); "not run (`npx just selftest`)"
 * for null. `now` dates the age.
 */
export function selftestShort(s: SelftestSummary | null, now: Date, tableHosts: MachineFacts[] = []): string {
  if (!s) return 'not run (`npx just selftest`)';
  const here = s.machine;
  const host =
    here && tableHosts.length
      ? tableHosts.some((m) => sameMachine(m, here))
        ? ', this machine'
        : ', another machine'
      : '';
  return `${pctText(s.falseDifference.rate)} false differences (target ≤ 5%)${host}, ${ageText(now.getTime() - Date.parse(s.at))} old`;
}
