/**
 * Sampled response checks shared by the drivers: a sampled response (status, the framing and
 * content-type headers, body) is checked with the verifier's own ContractChecker
 * (contract/verify.ts), so a driver's body checks equal the verifier's.
 *
 * With request variants (LoadJob.variants) a driver that cannot tell which variant a response
 * answered (wrk: response() gets no connection) checks it against every variant and counts it
 * as a pass when one of them accepts it; autocannon and k6 know the variant and check that one.
 */
import os from 'node:os';
import type { ParamValues, Scenario } from '../contract/scenarios.ts';
import { ContractChecker } from '../contract/verify.ts';
import { parseCpuList } from '../lifecycle/cpu-plan.ts';
import type { LoadJob } from './driver-types.ts';

/** One sampled response. Header values are null when the header was absent. */
export interface SampledResponse {
  status: number;
  contentType: string | null;
  contentLength: string | null;
  transferEncoding: string | null;
  body: Buffer | string;
  /** Index into the job's variants when the driver knows which one this response answered. */
  variant?: number;
}

/** Counts of a window's sampled checks (LoadOutput.bodyChecks). */
export interface CheckTally {
  sampled: number;
  mismatched: number;
  /** Of `mismatched`, the responses whose status was not 2xx (an error answer rather than a wrong body). */
  mismatchedNon2xx?: number;
  firstMismatch?: string;
}

/** The parameter values of each request variant of `job` (just `job.params` without variants). */
export function variantParams(job: LoadJob): ParamValues[] {
  return job.variants?.length ? job.variants.map((v) => v.params) : [job.params];
}

/**
 * Checks sampled responses against scenario `s`: a response passes when the checker gives
 * something other than `fail` for at least one of `params` (the variants). Never throws.
 */
export function checkSamples(
  s: Scenario,
  sharedSchemas: object[],
  params: ParamValues[],
  samples: Iterable<SampledResponse>,
): CheckTally {
  const checker = new ContractChecker(sharedSchemas);
  const tally: CheckTally = { sampled: 0, mismatched: 0 };
  for (const r of samples) {
    tally.sampled++;
    const headers: Record<string, string> = {};
    if (r.contentType !== null) headers['content-type'] = r.contentType;
    if (r.contentLength !== null) headers['content-length'] = r.contentLength;
    if (r.transferEncoding !== null) headers['transfer-encoding'] = r.transferEncoding;
    let firstReason: string | undefined;
    let ok = false;
    const own = r.variant !== undefined ? params[r.variant] : undefined;
    for (const p of own ? [own] : params) {
      const v = checker.checkResponse(s, p, { status: r.status, headers, body: r.body });
      if (v.level !== 'fail') {
        ok = true;
        break;
      }
      firstReason ??= v.reasons.join('; ');
    }
    if (!ok) {
      tally.mismatched++;
      if (r.status < 200 || r.status > 299) tally.mismatchedNon2xx = (tally.mismatchedNon2xx ?? 0) + 1;
      tally.firstMismatch ??= firstReason;
    }
  }
  return tally;
}

/** The number of cores in a taskset CPU list ("0", "0,2", "0-3"); all of this machine's when unpinned. */
export function coresOf(cpus: string | null): number {
  if (!cpus) return os.availableParallelism();
  return parseCpuList(cpus).length;
}
