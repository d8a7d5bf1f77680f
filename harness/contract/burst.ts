/**
 * The concurrency verification burst: before a cell is measured, send a short
 * burst (default 2,000 requests) over `connections` keep-alive connections and check EVERY
 * response against the contract with the same ContractChecker as the verifier. It catches what a
 * single request cannot: a POST that hangs on a reused connection (the Nexus/Express/Fastify
 * report's failure class) and rare wrong bodies (1 in 200). Any failed response fails the cell.
 *
 * Requests: `variants` (e.g. graphql-node's random ids) are drawn in turn, each checked against
 * its own expectation; else the one load request. Times in ms; the whole burst is bounded by
 * `maxMs` (default 30 s), each whole response by `timeoutMs` from its request and by
 * `bodyTimeoutMs` from its head (contract/http.ts `fetchOnce`: a body that never ends fails); it
 * stops early after 20 failures.
 */
import http from 'node:http';
import { describeError, fetchOnce } from './http.ts';

/** The most bytes of one burst response kept (1 MiB, over any scenario's body): with 100 connections in flight the burst holds at most 100 MiB. */
export const BURST_MAX_BYTES = 2 ** 20;
import type { ContractChecker } from './verify.ts';
import type { ConcreteRequest, ParamValues, Scenario } from './scenarios.ts';

export interface BurstOptions {
  baseUrl: string;
  scenario: Scenario;
  checker: ContractChecker;
  /** The load request and its parameter values. */
  request: ConcreteRequest;
  params: ParamValues;
  /** Per-request random variants (LoadJob.variants); used in turn when present. */
  variants?: { request: ConcreteRequest; params: ParamValues }[];
  /** Concurrent keep-alive connections (the profile's). */
  connections: number;
  /** Requests in all (default 2000). */
  requests?: number;
  /** Deadline of each whole response from its request, ms (default 5000). */
  timeoutMs?: number;
  /** Deadline of each response's body from its head, ms (default: timeoutMs). */
  bodyTimeoutMs?: number;
  /** Bound on the whole burst, ms (default 30000). */
  maxMs?: number;
  signal?: AbortSignal;
}

export interface BurstResult {
  ok: boolean;
  /** Requests that got an answer or failed. */
  requests: number;
  failed: number;
  /** Up to 5 distinct reasons, each with its count: "POST /data: no response within 5000 ms (1,990 of 2,000)". */
  reasons: string[];
  ms: number;
}

export const BURST_REQUESTS = 2000;
/** The burst stops early after this many failed responses: the cell has failed already. */
const STOP_AFTER = 20;

/** Sends the burst and checks every response. Never throws; an aborted burst reports what it saw. */
export async function burstCheck(o: BurstOptions): Promise<BurstResult> {
  const total = o.requests ?? BURST_REQUESTS;
  const timeoutMs = o.timeoutMs ?? 5000;
  const t0 = performance.now();
  const deadline = t0 + (o.maxMs ?? 30_000);
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.connections, maxFreeSockets: o.connections });
  const reasons = new Map<string, number>();
  let next = 0;
  let done = 0;
  let failed = 0;
  const fail = (r: string) => {
    failed++;
    reasons.set(r, (reasons.get(r) ?? 0) + 1);
  };
  const pick = (i: number) =>
    (o.variants?.length ? o.variants[i % o.variants.length] : undefined) ?? { request: o.request, params: o.params };
  const worker = async () => {
    while (next < total && failed < STOP_AFTER && !o.signal?.aborted && performance.now() < deadline) {
      const v = pick(next++);
      const label = `${v.request.method} ${v.request.path}`;
      try {
        const res = await fetchOnce(
          o.baseUrl,
          v.request,
          timeoutMs,
          agent,
          o.bodyTimeoutMs ?? timeoutMs,
          BURST_MAX_BYTES,
        );
        const verdict = o.checker.checkResponse(o.scenario, v.params, res);
        if (verdict.level === 'fail') fail(`${label}: ${verdict.reasons.join('; ')}`);
      } catch (e) {
        fail(`${label}: ${describeError(e)}`);
      }
      done++;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.connections, total)) }, worker));
  } finally {
    agent.destroy();
  }
  const ms = performance.now() - t0;
  const list = [...reasons.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([r, n]) => `${r} (${n.toLocaleString('en-US')} of ${done.toLocaleString('en-US')} burst requests)`);
  // A slow server that sends fewer than `total` within `maxMs` is not failed: only wrong or missing answers are.
  return { ok: failed === 0, requests: done, failed, reasons: list, ms };
}
