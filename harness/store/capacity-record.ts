/**
 * The stored record of a capacity cell (the `capacity` profile's open-loop searches): each step's
 * offered rate, latency and verdict, each search's result and bound, and the cell's summary over
 * its searches. Rates in requests/s, latencies in ms. Part of the cell file's schema
 * (store/results.ts `CellResult`).
 */

/**
 * One open-loop step of a capacity search: `rate` requests/s offered for `durationS`
 * seconds, latency measured from each request's scheduled send time. Latencies in ms.
 */
export interface CapacityStep {
  /** 1-based search (= round) the step belongs to. */
  search: number;
  /** Offered arrival rate, requests/s. */
  rate: number;
  /** 2xx responses ÷ step seconds. */
  achievedRps: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** Requests scheduled (rate × duration) and the ones that failed: errors, timeouts, non-2xx, dropped. */
  scheduled: number;
  failed: number;
  durationS: number;
  /** p99 ≤ the SLO, failed ≤ 0.1% of scheduled, and achieved ≥ 95% of the rate. */
  pass: boolean;
  /** The load driver used ≥ 75% of its core in this step (scheduler/capacity-round.ts OPEN_LOOP_BUSY_PCT): a failure may be the driver's, not the server's. */
  clientBound: boolean;
  /** Why the step failed ('' when it passed). */
  reason: string;
  /**
   * The verdict of the rate this step belongs to (2 of up to 3 steps at one rate decide,
   * scheduler/capacity-search.ts), which may differ from this step's own `pass`. Absent in runs
   * of the earlier best-of-two rule (one step, or a failure confirmed by a second).
   */
  ratePass?: boolean;
}

/**
 * How one search ended. `met`: bracketed between a held and a failing rate (the search's `bound`
 * is `bracketed`); `at-least`: a lower bound, the search's `bound` says why (the lowest failing
 * rate was client-bound, or no rate failed up to the search's cap); `never`: not even the lowest
 * rate tried held the SLO; `interrupted`: Ctrl-C or a crash stopped it, or it ran out of steps
 * before any rate held (its steps are kept).
 */
export type CapacityVerdict = 'met' | 'at-least' | 'never' | 'interrupted';

/**
 * What a search that held some rate learned about its capacity. `bracketed`: a rate
 * above its highest held rate failed, not at the driver's limit, so the capacity lies between
 * them; `driver-limit`: the lowest failing rate was client-bound (a lower bound); `no-failure`:
 * no rate failed up to the search's cap ("≥ its highest held rate", never a measured figure).
 */
export type CapacityBound = 'bracketed' | 'driver-limit' | 'no-failure';

/** One search of one trial (round). Rates in requests/s, latencies in ms. */
export interface CapacitySearch {
  sloP99Ms: number;
  /** The open-loop driver (drivers/open-loop.ts). */
  driver: string;
  /** The closed-loop requests/s measured just before the search on the same server (the search's upper bound). */
  peakRps: number;
  /**
   * The search's capacity, or null when no rate held. For a bracketed search
   * (verdict met) the geometric midpoint of `heldRps` and `failRps`, else the highest held rate
   * (a lower bound). Older runs: the highest rate that held.
   */
  rps: number | null;
  verdict: CapacityVerdict;
  steps: CapacityStep[];
  /** The highest rate whose steps held and the lowest whose steps failed (absent in older runs). */
  heldRps?: number;
  failRps?: number;
  /** What the search learned; absent in older runs and when no rate held. */
  bound?: CapacityBound;
  /** The highest rate the search could offer (above a noisy peak, up to a cap), requests/s; absent in older runs. */
  capRps?: number;
}

/** A capacity cell: its searches summarised. Rates in requests/s, latencies in ms. */
export interface CapacitySummary {
  sloP99Ms: number;
  driver: string;
  /**
   * `met` when at least one search bracketed its capacity (the figure is over
   * those only); `at-least` when none did but some held a rate (a lower bound); `never` when every
   * search never held the SLO. Older runs: `at-least` when any search was client-bound.
   */
  verdict: CapacityVerdict;
  /**
   * Sustainable requests/s at p99 ≤ sloP99Ms (the estimator of analysis/stats.ts): over the
   * searches that bracketed their capacity, else (verdict at-least) over the lower bounds; or null.
   * Older runs: over every search that found a rate.
   */
  rps: { figure: number; interval: [number, number] | null; kind: 'ci95' | 'range' | 'none' } | null;
  /** Closed-loop peak requests/s of the same rounds (same estimator). */
  peakRps: { figure: number; interval: [number, number] | null; kind: 'ci95' | 'range' | 'none' };
  /**
   * rps.figure ÷ peakRps.figure: the share of the closed-loop peak sustained at the SLO (null
   * without rps). Stored as `knee` (its earlier name); reports call it "share of peak at SLO".
   */
  knee: number | null;
  searches: number;
  /** Searches that bracketed their capacity (the ones the figure comes from); absent in older runs. */
  bracketed?: number;
  /**
   * Searches that did not bracket their capacity but held a rate above the figure (lower bounds
   * above it: the figure may understate the capacity); absent in older runs.
   */
  boundsAbove?: number;
  /**
   * Set when the searches disagreed (analysis/capacity.ts `reconcileCapacity`): the searches
   * outside the bracketed figure that held a rate above its interval. The cell is then `at-least`
   * and `rps` is over every search (geometric mean, range min–max). Absent otherwise.
   */
  heldAbove?: number;
  /** Searches that never held the SLO. */
  never: number;
  /** Every step of every search: the latency-versus-rate curve. */
  steps: CapacityStep[];
}
