/**
 * The optional tools: what is installed, what a missing one costs, and installing
 * what can be installed (`just tools`, `just doctor`, and the `test` recipe before the tests).
 *
 * - k6: built from its Go module into the tool cache outside the clone (drivers/k6.ts `cacheBin`).
 * - oha (the open-loop driver of the capacity search): built with cargo into the tool cache
 *   (drivers/open-loop-oha.ts `ohaRoot`) when cargo is installed, once: 7 minutes here on 2
 *   cores (2026-11-22), up to ~25 on a busy host; BENCH_BUILD_OHA=0 skips it (the capacity
 *   search then uses k6, whose open-loop ceiling is ~5k requests/s here).
 * - wrk (the native driver) and chromium (the HTML report's browser test): Debian packages,
 *   installed with `apt-get install -y` when running as root (after `apt-get update` when the
 *   package lists do not know them); otherwise the exact command is printed.
 * - go, taskset, docker: reported only.
 */
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { PROFILES, type Profile } from '../core/profiles.ts';
import { UserError } from '../core/errors.ts';
import { onPath } from '../lifecycle/processes.ts';
import { cacheBin, findK6, GO_FOR_K6, K6_VERSION, k6VersionOf } from './k6.ts';
import { findOha, installOha } from './open-loop-oha.ts';
import { findWrk } from './wrk.ts';

/** One tool as `just doctor` lists it. */
export interface ToolStatus {
  name: 'wrk' | 'k6' | 'oha' | 'go' | 'chromium' | 'taskset' | 'docker';
  available: boolean;
  version: string | null;
  path: string | null;
  /** What is skipped or flagged without it. */
  costs: string;
  /** How to get it. */
  install: string;
}

/** Debian packages the tools and tests use, by tool. */
const APT: Record<string, string> = { wrk: 'wrk', chromium: 'chromium' };
/** The chromium binary the browser tests and `just screenshot` drive: Debian's package. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * The Chromium to drive: `$CHROMIUM_PATH` when it is set and names an existing file, else Debian's
 * `/usr/bin/chromium` when installed, else null (no browser is ever downloaded).
 */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string | null {
  const own = env.CHROMIUM_PATH;
  if (own && fs.existsSync(own)) return own;
  return fs.existsSync(CHROMIUM) ? CHROMIUM : null;
}

const names = (pred: (p: (typeof PROFILES)[number]) => boolean) =>
  PROFILES.filter(pred)
    .map((p) => p.name)
    .join(', ');

function versionOf(bin: string, args: string[], re: RegExp): string | null {
  const r = spawnSync(bin, args, { encoding: 'utf8', timeout: 20_000 });
  return re.exec(`${r.stdout ?? ''}${r.stderr ?? ''}`)?.[1] ?? null;
}

/** True when this process runs as root (apt-get can install). */
export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** The command that installs Debian packages `pkgs` (with sudo when not root). */
export function aptCommand(pkgs: string[]): string {
  return `${isRoot() ? '' : 'sudo '}apt-get update && ${isRoot() ? '' : 'sudo '}apt-get install -y ${pkgs.join(' ')}`;
}

/** Every optional tool: installed or not, its version, and what its absence costs. */
export function toolStatus(): ToolStatus[] {
  const wrk = findWrk();
  const k6 = findK6({ build: false });
  const oha = findOha();
  const go = onPath('go');
  const chromium = chromiumPath();
  const taskset = onPath('taskset');
  const docker = onPath('docker');
  return [
    {
      name: 'wrk',
      available: Boolean(wrk),
      version: wrk?.version ?? null,
      path: wrk?.bin ?? null,
      costs: `the native driver: profiles ${names((p) => p.driver === 'native')} rank with autocannon instead (the report says so; its fastest cells may be client-bound and are flagged), the driver fidelity check is skipped, cells with driver wrk are skipped, and the wrk tests are skipped`,
      install: aptCommand(['wrk']),
    },
    {
      name: 'k6',
      available: Boolean(k6.bin),
      version: k6.bin ? k6VersionOf(k6.bin) : null,
      path: k6.bin,
      costs: `cells of the k6 profiles (${names((p) => p.driver === 'k6')}) are skipped with the reason, and the k6 tests are skipped`,
      install: `npx just tools (Go ≥ ${GO_FOR_K6} builds go.k6.io/k6@v${K6_VERSION} into ${cacheBin()}), or k6 ≥ ${K6_VERSION} on PATH`,
    },
    {
      name: 'oha',
      available: Boolean(oha.bin),
      version: oha.version,
      path: oha.bin,
      costs: `the capacity search's open-loop steps run on k6 instead, which holds only about 5k requests/s here${k6.bin ? '' : ' (and without k6 the capacity search is skipped)'}`,
      install: `npx just tools, or ${oha.install} (7–25 minutes, once)`,
    },
    {
      name: 'go',
      available: Boolean(go),
      version: go ? versionOf(go, ['version'], /go(\d+\.\d+(?:\.\d+)?)/) : null,
      path: go,
      costs: 'k6 cannot be built from source (matters only while k6 is missing)',
      install: `Go ≥ ${GO_FOR_K6} from https://go.dev/dl/ (or ${aptCommand(['golang-go'])} when Debian's is new enough)`,
    },
    {
      name: 'chromium',
      available: Boolean(chromium),
      version: chromium ? versionOf(chromium, ['--version'], /(\d+\.\d+\.\d+\.\d+)/) : null,
      path: chromium,
      costs: 'the browser test of leaderboard.html is skipped (the HTML report is still written)',
      install: aptCommand(['chromium']),
    },
    {
      name: 'taskset',
      available: Boolean(taskset),
      version: taskset ? versionOf(taskset, ['--version'], /(\d+\.\d+(?:\.\d+)?)/) : null,
      path: taskset,
      costs: 'runs are unpinned: server and load driver compete for cores (recorded in every result)',
      install: aptCommand(['util-linux']),
    },
    {
      name: 'docker',
      available: Boolean(docker),
      version: docker ? versionOf(docker, ['--version'], /version (\S+?),?\s/) : null,
      path: docker,
      costs: 'compose-up/compose-down and the compose-only contender hasura are unavailable',
      install: 'Docker Engine: https://docs.docker.com/engine/install/',
    },
  ];
}

/** Whether apt's package lists know `pkg` (else `apt-get update` is needed first). */
function aptKnows(pkg: string): boolean {
  const r = spawnSync('apt-cache', ['policy', pkg], { encoding: 'utf8' });
  return r.status === 0 && /Candidate: (?!\(none\))/.test(r.stdout ?? '');
}

/**
 * Installs or builds every optional tool it can: k6 (Go build into the cache), and as root
 * Debian's wrk and chromium via apt-get; oha (cargo build into the cache, 7–25 minutes, once)
 * unless `oha: false` or BENCH_BUILD_OHA=0. Returns one line per tool (done,
 * present, or the exact command to run); `ok` is false when k6, wrk or chromium is still missing
 * afterwards (oha does not count).
 */
export function installTools(o: { log: (l: string) => void; apt?: boolean; oha?: boolean }): {
  ok: boolean;
  lines: string[];
} {
  const lines: string[] = [];
  const k6 = findK6({ build: true, log: o.log });
  lines.push(k6.bin ? `k6: ${k6.bin}` : `k6: missing — ${k6.why}`);
  const oha = (o.oha ?? process.env.BENCH_BUILD_OHA !== '0') ? installOha(o.log) : findOha();
  lines.push(
    oha.bin
      ? `oha: ${oha.bin} (${oha.version})`
      : `oha: missing — ${oha.why}; run: ${oha.install} (7–25 minutes, once)`,
  );
  const missing = Object.entries(APT)
    .filter(([tool]) => (tool === 'wrk' ? !findWrk() : !chromiumPath()))
    .map(([, pkg]) => pkg);
  const aptGet = onPath('apt-get');
  if (missing.length && isRoot() && aptGet && o.apt !== false) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (!missing.every(aptKnows)) {
      o.log('apt-get update…');
      spawnSync(aptGet, ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    }
    o.log(`apt-get install -y ${missing.join(' ')}…`);
    const r = spawnSync(aptGet, ['install', '-y', '-qq', ...missing], { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (r.status !== 0) o.log(`apt-get install ${missing.join(' ')} failed (exit ${r.status})`);
  }
  const wrk = findWrk();
  lines.push(wrk ? `wrk: ${wrk.bin} (${wrk.version})` : `wrk: missing — run: ${aptCommand(['wrk'])}`);
  const chromium = chromiumPath();
  lines.push(chromium ? `chromium: ${chromium}` : `chromium: missing — run: ${aptCommand(['chromium'])}`);
  return { ok: Boolean(k6.bin && wrk && chromium), lines };
}

/** `just doctor`'s text: each tool with its version, and for each missing one what it costs and how to get it. */
export function doctorReport(tools: ToolStatus[] = toolStatus()): string {
  const out: string[] = [];
  for (const t of tools) {
    if (t.available) out.push(`ok       ${t.name.padEnd(9)} ${t.version ?? 'version unknown'}  (${t.path})`);
    else {
      out.push(`missing  ${t.name.padEnd(9)} costs: ${t.costs}`);
      out.push(`         ${''.padEnd(9)} install: ${t.install}`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** What `ensureNativeDriver` needs of the machine (real ones by default; fakes in tests). */
export interface NativeDriverDeps {
  /** The installed wrk, or null. */
  find: () => { bin: string; version: string } | null;
  /** True when this process may run apt-get (root, and apt-get on PATH). */
  canApt: () => boolean;
  /** Runs `apt-get install -y wrk` (after `apt-get update` when needed); its exit status. */
  installWrk: () => number | null;
}

const realNativeDeps: NativeDriverDeps = {
  find: findWrk,
  canApt: () => isRoot() && Boolean(onPath('apt-get')),
  installWrk: () => {
    const aptGet = onPath('apt-get');
    if (!aptGet) return null;
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (!aptKnows('wrk')) spawnSync(aptGet, ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    return spawnSync(aptGet, ['install', '-y', '-qq', 'wrk'], { stdio: ['ignore', 'ignore', 'inherit'], env }).status;
  },
};

/**
 * Makes sure a profile whose driver is `native` (the default bake-off's quick profile) or `wrk`
 * ranks with wrk: nothing to do when wrk is installed or the driver is autocannon or k6; as root it installs
 * Debian's wrk (a few seconds), saying so through `log`; otherwise it throws a UserError (exit 2)
 * with the install command and `--driver autocannon` as the knowing way on, so that no run ever
 * ranks with a driver whose fidelity the same run cannot check without the user having chosen it.
 */
export function ensureNativeDriver(
  p: Pick<Profile, 'name' | 'driver'>,
  log: (l: string) => void,
  deps: NativeDriverDeps = realNativeDeps,
): void {
  if ((p.driver !== 'native' && p.driver !== 'wrk') || deps.find()) return;
  let tried = false;
  if (deps.canApt()) {
    log(
      `wrk, the load driver of the ${p.name} profile, is not installed: installing Debian's wrk (apt-get install -y wrk)…`,
    );
    tried = true;
    const status = deps.installWrk();
    const wrk = deps.find();
    if (wrk) {
      log(`installed wrk ${wrk.version} (${wrk.bin})`);
      return;
    }
    log(`apt-get install -y wrk failed (exit ${status ?? 'none'})`);
  }
  throw new UserError(
    `wrk, the load driver that ranks the ${p.name} profile, is not installed${tried ? ' and apt-get could not install it' : ''}. Install it: ${aptCommand(['wrk'])} (or \`npx just tools\` as root), then run again; or rank with autocannon knowingly: --driver autocannon (it may be the bottleneck on the fastest cells, and the run cannot check its fidelity without wrk).`,
  );
}
