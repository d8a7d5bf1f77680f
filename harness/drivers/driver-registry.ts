/**
 * The load drivers by name, and which one a profile uses.
 *
 * - `getDriver(name)`: autocannon (Node, always installed), wrk (C, Debian package) or k6 (Go).
 * - `resolveDriver(profile)`: k6 profiles → k6; `autocannon`/`wrk` → that driver; `native` → wrk
 *   when it is installed, else autocannon with a one-line note saying so and how to install wrk
 *   (the report says it once in its header).
 * - `probeAll()`: every driver's availability, version and install command (`just doctor`).
 */
import { DRIVER_NAMES, type Profile } from '../core/profiles.ts';
import { autocannonDriver } from './autocannon.ts';
import { k6Driver } from './k6.ts';
import type { DriverName, DriverProbe, LoadDriver } from './driver-types.ts';
import { WRK_INSTALL, wrkDriver } from './wrk.ts';

const DRIVERS: Record<DriverName, LoadDriver> = { autocannon: autocannonDriver, wrk: wrkDriver, k6: k6Driver };

/** Every driver name (defined in core/profiles.ts), in the order `probeAll` lists them. */
export { DRIVER_NAMES };

/** The driver called `name`; throws on an unknown name. */
export function getDriver(name: DriverName): LoadDriver {
  const d = DRIVERS[name];
  if (!d) throw new Error(`unknown load driver '${name}' (known: ${DRIVER_NAMES.join(', ')})`);
  return d;
}

/** The sentence used when `native` falls back to autocannon (also in the report header). */
export const NATIVE_FALLBACK_NOTE = `the native driver wrk is not installed, so autocannon measured the ranking (it may be the bottleneck on the fastest cells): install wrk (${WRK_INSTALL}, or \`npx just tools\` as root)`;

/**
 * The driver profile `p` runs with. `note` is null unless `native` fell back to autocannon.
 * Probes wrk each call (cheap: one `wrk -v`).
 */
export function resolveDriver(p: Profile): { driver: LoadDriver; name: DriverName; note: string | null } {
  if (p.driver === 'native') {
    if (wrkDriver.probe().available) return { driver: wrkDriver, name: 'wrk', note: null };
    return { driver: autocannonDriver, name: 'autocannon', note: NATIVE_FALLBACK_NOTE };
  }
  const name: DriverName = p.driver;
  return { driver: getDriver(name), name, note: null };
}

/** Each driver's probe, autocannon first. */
export function probeAll(): DriverProbe[] {
  return DRIVER_NAMES.map((n) => DRIVERS[n].probe());
}
