/**
 * Load profiles: the one place where every profile is defined.
 *
 * Units: durations and timeouts in seconds; connections are concurrent HTTP/1.1 keep-alive
 * connections; pipelining is requests in flight per connection (1 = none).
 * Sources: seed 003 (`nexus-report`: autocannon, 100 connections, pipelining 10, 10 s),
 * seed 004 (`standard`: 10 connections, 10 s; `stress`: 100 connections, 60 s).
 */
import { unknownName } from './errors.ts';

export interface AutocannonProfile {
  name: string;
  driver: 'autocannon';
  description: string;
  source: string;
  connections: number;
  pipelining: number;
  /** Warm-up run before the measurement, seconds (not recorded as a result). */
  warmupS: number;
  /** Measured window, seconds. */
  durationS: number;
  /** Per-request timeout, seconds; a timed-out request counts as a timeout and its connection is reset. */
  timeoutS: number;
}

export type Profile = AutocannonProfile;

export const PROFILES: Profile[] = [
  {
    name: 'smoke', driver: 'autocannon', description: 'about 2 s, for tests and a quick sanity check (1 s timeouts so a hung request shows up)',
    source: 'project', connections: 10, pipelining: 1, warmupS: 0, durationS: 2, timeoutS: 1,
  },
  {
    name: 'quick', driver: 'autocannon', description: 'the default bake-off: 100 connections, 2 s warm-up, 5 s measured',
    source: 'project', connections: 100, pipelining: 1, warmupS: 2, durationS: 5, timeoutS: 10,
  },
  {
    name: 'nexus-report', driver: 'autocannon', description: '100 connections, pipelining 10, 10 s measured',
    source: 'seed 003', connections: 100, pipelining: 10, warmupS: 3, durationS: 10, timeoutS: 10,
  },
  {
    name: 'standard', driver: 'autocannon', description: '10 connections, 10 s measured',
    source: 'seed 004 (standard)', connections: 10, pipelining: 1, warmupS: 3, durationS: 10, timeoutS: 10,
  },
  {
    name: 'stress', driver: 'autocannon', description: '100 connections, 60 s measured',
    source: 'seed 004 (stress)', connections: 100, pipelining: 1, warmupS: 5, durationS: 60, timeoutS: 10,
  },
];

export const DEFAULT_PROFILE = 'quick';

/** Looks a profile up by name; throws UserError listing the valid names. */
export function getProfile(name: string): Profile {
  return PROFILES.find((p) => p.name === name) ?? unknownName('profile', name, PROFILES.map((p) => p.name));
}
