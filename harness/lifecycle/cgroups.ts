/**
 * The kernel's containment of one tracked child (a contender server, a driver, a service): its
 * cgroups, in cgroup v2 and in cgroup v1, whichever this machine mounts (a hybrid host has both).
 *
 * Per harness, one folder `bakeoff-<pid>-<start ticks>` beside its own cgroup in each hierarchy it
 * uses (the unified v2 tree; the v1 hierarchies of `cpuset`, `freezer`, `cpuacct`, `memory`,
 * `pids`), and per child one folder `c<n>` in each. A child joins all of them before it execs its
 * command (processes.ts writes its pid into every `cgroup.procs`), so everything it forks, however
 * detached (setsid, a double fork), stays in them. What each cgroup gives, v2 first where both can:
 * - **pinning**: `cpuset.cpus` (v2 with the cpuset controller delegated, else the v1 cpuset
 *   hierarchy). `sched_setaffinity` cannot leave a cpuset: the kernel intersects any mask with it.
 * - **pause**: `cgroup.freeze` (v2, a core file: no controller needed) or `freezer.state` (v1):
 *   every process of the cgroup stops, detached children included, where SIGSTOP reaches one
 *   process group only.
 * - **CPU time**: `cpu.stat` `usage_usec` (v2, a core file) or `cpuacct.usage` (v1, ns), exited
 *   processes included.
 * - **kill**: `cgroup.kill` (v2); in v1, freeze, SIGKILL every pid, thaw (no fork can race it).
 * - **limits**: `memory.max` / `pids.max` (v2, when those controllers can be enabled) or
 *   `memory.limit_in_bytes` (+ `memory.memsw.limit_in_bytes`: no swap) / `pids.max` (v1).
 *
 * `BENCH_CGROUP=off` uses no cgroup (processes.ts falls back to process groups and an environment
 * token); `BENCH_CGROUP=v1` ignores the v2 tree (to exercise the v1 paths on a hybrid host).
 * Every function here swallows the kernel's refusals and reports what it could do.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The cgroup v1 controllers the harness uses. */
export type V1Controller = 'cpuset' | 'freezer' | 'cpuacct' | 'memory' | 'pids';
const V1_CONTROLLERS: readonly V1Controller[] = ['cpuset', 'freezer', 'cpuacct', 'memory', 'pids'];

/** The prefix of a harness's folders (`bakeoff-<pid>-<start ticks>`). */
export const CGROUP_PREFIX = 'bakeoff-';

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot), or null when gone. */
export function startTicks(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Which cgroup versions this harness may use (`BENCH_CGROUP`: off, v1, or unset for both). */
function allowed(): { v1: boolean; v2: boolean } {
  const v = process.env.BENCH_CGROUP;
  if (v === 'off') return { v1: false, v2: false };
  return { v1: true, v2: v !== 'v1' };
}

/** Mount lines of /proc/self/mountinfo: mount point, root in the hierarchy, file system type, super options. */
function mounts(): { point: string; root: string; type: string; opts: string[] }[] {
  try {
    return fs
      .readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const f = l.split(' ');
        const sep = f.indexOf('-');
        return { point: f[4] ?? '', root: f[3] ?? '/', type: f[sep + 1] ?? '', opts: (f[sep + 3] ?? '').split(',') };
      });
  } catch {
    return [];
  }
}

/** `own` relative to a mount whose root in the hierarchy is `root` ("/" for a whole hierarchy). */
function under(point: string, root: string, own: string): string {
  const rel = root !== '/' && own.startsWith(root) ? own.slice(root.length) : own;
  return path.join(point, rel.replace(/ \(deleted\)$/, ''));
}

/**
 * The cgroup2 folder of this process's own cgroup (where the harness's per-run folders go), from
 * /proc/self/mountinfo and /proc/self/cgroup ("0::/path"); null off Linux, without a cgroup2
 * mount, or with `BENCH_CGROUP` off or v1.
 */
export function cgroupParent(): string | null {
  if (!allowed().v2) return null;
  try {
    const m = mounts().find((x) => x.type === 'cgroup2');
    const own = /^0::(.*)$/m.exec(fs.readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
    if (!m || own === undefined) return null;
    return under(m.point, m.root, own);
  } catch {
    return null;
  }
}

/** Per v1 controller mounted here: the folder of this process's own cgroup in its hierarchy. {} without v1 or with `BENCH_CGROUP=off`. */
export function v1Parents(): Partial<Record<V1Controller, string>> {
  if (!allowed().v1) return {};
  let own: string[] = [];
  try {
    own = fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return {};
  }
  const out: Partial<Record<V1Controller, string>> = {};
  for (const c of V1_CONTROLLERS) {
    const m = mounts().find((x) => x.type === 'cgroup' && x.opts.includes(c));
    const line = own.map((l) => l.split(':')).find((f) => f.length >= 3 && (f[1] ?? '').split(',').includes(c));
    if (m && line) out[c] = under(m.point, m.root, line.slice(2).join(':'));
  }
  return out;
}

/** Writes `value` to `<dir>/<file>`; false when the kernel refuses or the file is missing. */
export function writeKnob(dir: string, file: string, value: string): boolean {
  try {
    fs.writeFileSync(path.join(dir, file), value);
    return true;
  } catch {
    return false;
  }
}

/** The trimmed text of `<dir>/<file>`, or null. */
export function readKnob(dir: string, file: string): string | null {
  try {
    return fs.readFileSync(path.join(dir, file), 'utf8').trim();
  } catch {
    return null;
  }
}

/** The pids in cgroup `dir` (not its descendants), [] when it is gone. */
export function cgroupPids(dir: string): number[] {
  return (readKnob(dir, 'cgroup.procs') ?? '').split('\n').filter(Boolean).map(Number);
}

/** A counter of a cgroup file of `key value` lines (`oom_kill`, `max`), 0 when unreadable. */
export function cgroupEvent(dir: string, file: string, key: string): number {
  return Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(readKnob(dir, file) ?? '')?.[1] ?? 0);
}

/** rmdir of cgroup `dir` and its (empty) child cgroups; true when it is gone. */
export function removeCgroupDir(dir: string): boolean {
  try {
    for (const d of fs.readdirSync(dir, { withFileTypes: true }))
      if (d.isDirectory()) removeCgroupDir(path.join(dir, d.name));
    fs.rmdirSync(dir);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** SIGKILL to each pid; gone ones are skipped. */
export function killPids(pids: number[]): void {
  for (const p of pids) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

/**
 * Kills every process of v1 cgroup `dir` and its child cgroups: freezes them (when the folder is a
 * freezer cgroup) so none can fork, SIGKILLs every pid, thaws them so the kills land.
 */
export function killV1(dir: string): void {
  let subs: string[] = [];
  try {
    subs = fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => path.join(dir, d.name));
  } catch {
    return;
  }
  for (const s of subs) killV1(s);
  const freezer = fs.existsSync(path.join(dir, 'freezer.state'));
  if (freezer) writeKnob(dir, 'freezer.state', 'FROZEN');
  killPids(cgroupPids(dir));
  if (freezer) writeKnob(dir, 'freezer.state', 'THAWED');
}

/** True while v1 cgroup `dir` or one of its child cgroups holds a process. */
export function v1Populated(dir: string): boolean {
  if (cgroupPids(dir).length) return true;
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .some((d) => d.isDirectory() && v1Populated(path.join(dir, d.name)));
  } catch {
    return false;
  }
}

/** A harness's own folders: the v2 one (or null) and one per v1 controller it could make. */
export interface HarnessCgroups {
  v2: string | null;
  v1: Partial<Record<V1Controller, string>>;
}

/** Copies `cpuset.cpus` and `cpuset.mems` from a v1 cpuset folder's parent (a new cpuset folder starts empty). */
function inheritCpuset(dir: string): boolean {
  const parent = path.dirname(dir);
  const cpus = readKnob(parent, 'cpuset.effective_cpus') ?? readKnob(parent, 'cpuset.cpus');
  const mems = readKnob(parent, 'cpuset.effective_mems') ?? readKnob(parent, 'cpuset.mems');
  return (
    Boolean(cpus && mems) && writeKnob(dir, 'cpuset.cpus', cpus ?? '') && writeKnob(dir, 'cpuset.mems', mems ?? '')
  );
}

/** Makes (or reuses) folder `name` under each v1 parent; the controllers it could make. */
export function makeV1Folders(parents: Partial<Record<V1Controller, string>>, name: string): HarnessCgroups['v1'] {
  const out: HarnessCgroups['v1'] = {};
  for (const [c, parent] of Object.entries(parents) as [V1Controller, string][]) {
    const d = path.join(parent, name);
    try {
      fs.mkdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') continue;
    }
    if (c === 'cpuset' && !inheritCpuset(d)) {
      removeCgroupDir(d);
      continue;
    }
    if (c === 'memory') writeKnob(d, 'memory.use_hierarchy', '1');
    out[c] = d;
  }
  return out;
}

/**
 * The v1 folders `bakeoff-<pid>-<ticks>` whose harness is gone (pid dead, or reused), under each
 * v1 parent: killed (frozen, SIGKILLed, thawed) and removed. Returns the folders removed.
 */
export function sweepStaleV1(parents: Partial<Record<V1Controller, string>> = v1Parents()): string[] {
  const removed: string[] = [];
  for (const parent of Object.values(parents)) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = /^bakeoff-(\d+)-(\d+)$/.exec(name);
      if (!m || startTicks(Number(m[1])) === m[2]) continue;
      const dir = path.join(parent, name);
      killV1(dir);
      for (let i = 0; i < 200 && v1Populated(dir); i++) spawnSync('sleep', ['0.01']);
      if (removeCgroupDir(dir)) removed.push(dir);
    }
  }
  return removed;
}

/** The limits of a tracked child: memory in bytes (RSS), tasks (threads included). */
export interface ProcessLimits {
  memoryBytes: number;
  pids: number;
}

/**
 * One tracked child's cgroups: its v2 folder (or null), its v1 folders, the CPU list the kernel
 * confines it to (`cpuset`, or null: only taskset pins it) and which limits the kernel enforces.
 */
export interface ChildCgroups {
  v2: string | null;
  v1: Partial<Record<V1Controller, string>>;
  cpuset: { cpus: string; version: 1 | 2 } | null;
  kernel: { memory: boolean; pids: boolean };
}

let v2Enabled: Set<string> | undefined;
/** Enables the v2 controllers `want` for the children of harness folder `dir` (once); the ones on. */
function enableV2(dir: string, want: readonly string[]): Set<string> {
  if (!v2Enabled) {
    for (const c of want) writeKnob(dir, 'cgroup.subtree_control', `+${c}`);
    v2Enabled = new Set((readKnob(dir, 'cgroup.subtree_control') ?? '').split(/\s+/).filter(Boolean));
  }
  return v2Enabled;
}

/**
 * Makes child folder `name` in each of the harness's folders and confines it to `cpus` (a CPU
 * list, or null: no pinning) by cpuset where it can (v2 when its cpuset controller is delegated,
 * else v1). Folders the kernel refuses are left out.
 */
export function makeChild(h: HarnessCgroups, name: string, cpus: string | null): ChildCgroups {
  const c: ChildCgroups = { v2: null, v1: {}, cpuset: null, kernel: { memory: false, pids: false } };
  if (h.v2) {
    const d = path.join(h.v2, name);
    try {
      fs.mkdirSync(d);
      c.v2 = d;
    } catch {
      /* refused: v1 and the fallback remain */
    }
  }
  c.v1 = makeV1Folders(h.v1, name);
  if (!cpus) return c;
  if (
    c.v2 &&
    h.v2 &&
    enableV2(h.v2, ['cpuset', 'memory', 'pids']).has('cpuset') &&
    writeKnob(c.v2, 'cpuset.cpus', cpus)
  )
    c.cpuset = { cpus, version: 2 };
  else if (c.v1.cpuset && writeKnob(c.v1.cpuset, 'cpuset.cpus', cpus)) c.cpuset = { cpus, version: 1 };
  return c;
}

/** Every `cgroup.procs` file the child must join (v2 first). */
export function childProcsFiles(c: ChildCgroups): string[] {
  return [c.v2, ...Object.values(c.v1)].filter((d): d is string => Boolean(d)).map((d) => path.join(d, 'cgroup.procs'));
}

/** The pids in any of the child's cgroups (the union), [] when none is readable. */
export function childPids(c: ChildCgroups): number[] {
  const out = new Set<number>();
  for (const d of [c.v2, ...Object.values(c.v1)]) if (d) for (const p of cgroupPids(d)) out.add(p);
  return [...out];
}

/** True when the child has a cgroup the harness can read its processes from. */
export function hasCgroup(c: ChildCgroups): boolean {
  return Boolean(c.v2 || Object.keys(c.v1).length);
}

/** True while any of the child's cgroups holds a process. */
export function childPopulated(c: ChildCgroups): boolean {
  if (c.v2 && /^populated 1$/m.test(readKnob(c.v2, 'cgroup.events') ?? '')) return true;
  return Object.values(c.v1).some((d) => v1Populated(d));
}

/** How the child can be paused: `v2` (cgroup.freeze), `v1` (freezer.state), or null (signals only). */
export function freezeKind(c: ChildCgroups): 'v2' | 'v1' | null {
  if (c.v2 && fs.existsSync(path.join(c.v2, 'cgroup.freeze'))) return 'v2';
  return c.v1.freezer ? 'v1' : null;
}

/** Freezes (`on`) or thaws the whole child, detached processes included; false when no freezer could. */
export function freezeChild(c: ChildCgroups, on: boolean): boolean {
  const k = freezeKind(c);
  if (k === 'v2' && c.v2) return writeKnob(c.v2, 'cgroup.freeze', on ? '1' : '0');
  if (k === 'v1' && c.v1.freezer) return writeKnob(c.v1.freezer, 'freezer.state', on ? 'FROZEN' : 'THAWED');
  return false;
}

/** CPU time of every process the child ever had, µs: v2 `cpu.stat` usage_usec, else v1 `cpuacct.usage` (ns); null when neither reads. */
export function childCpuUs(c: ChildCgroups): number | null {
  if (c.v2) {
    const m = /^usage_usec (\d+)$/m.exec(readKnob(c.v2, 'cpu.stat') ?? '');
    if (m?.[1]) return Number(m[1]);
  }
  const ns = c.v1.cpuacct ? readKnob(c.v1.cpuacct, 'cpuacct.usage') : null;
  return ns && /^\d+$/.test(ns) ? Number(ns) / 1000 : null;
}

/** SIGKILL to every process of the child: v2 `cgroup.kill`, then each v1 folder frozen, killed, thawed. */
export function killChild(c: ChildCgroups): void {
  if (c.v2) writeKnob(c.v2, 'cgroup.kill', '1');
  for (const d of Object.values(c.v1)) killV1(d);
}

/** rmdir of every folder of the child; true when all are gone (each that is gone is forgotten). */
export function removeChild(c: ChildCgroups): boolean {
  if (c.v2 && removeCgroupDir(c.v2)) c.v2 = null;
  for (const [k, d] of Object.entries(c.v1) as [V1Controller, string][]) if (removeCgroupDir(d)) delete c.v1[k];
  return !hasCgroup(c);
}

/**
 * Applies `limits` to the child where the kernel can enforce them: v2 `memory.max` (swap 0, the
 * whole group killed on OOM) and `pids.max` when the harness folder has those controllers, else
 * v1 `memory.limit_in_bytes` (and `memory.memsw.limit_in_bytes`: no swap) and v1 `pids.max`.
 * Sets and returns `c.kernel`.
 */
export function applyChildLimits(h: HarnessCgroups, c: ChildCgroups, limits: ProcessLimits): ChildCgroups['kernel'] {
  const on = c.v2 && h.v2 ? enableV2(h.v2, ['cpuset', 'memory', 'pids']) : new Set<string>();
  const bytes = String(limits.memoryBytes);
  let memory = false;
  if (c.v2 && on.has('memory') && writeKnob(c.v2, 'memory.max', bytes)) {
    memory = true;
    writeKnob(c.v2, 'memory.swap.max', '0'); // a limit swapped out is no limit on a host with swap
    writeKnob(c.v2, 'memory.oom.group', '1'); // the whole server, not one of its processes
  } else if (c.v1.memory && writeKnob(c.v1.memory, 'memory.limit_in_bytes', bytes)) {
    memory = true;
    writeKnob(c.v1.memory, 'memory.memsw.limit_in_bytes', bytes);
  }
  const pids =
    (c.v2 !== null && on.has('pids') && writeKnob(c.v2, 'pids.max', String(limits.pids))) ||
    (c.v1.pids !== undefined && writeKnob(c.v1.pids, 'pids.max', String(limits.pids)));
  c.kernel = { memory, pids };
  return c.kernel;
}

/** The limit the kernel enforced on the child, from its counters: `memory` (an OOM kill) or `pids` (a refused fork), else null. */
export function kernelBreach(c: ChildCgroups): 'memory' | 'pids' | null {
  if (c.kernel.memory) {
    const oom = c.v2 && cgroupEvent(c.v2, 'memory.events', 'oom_kill') > 0;
    const oomV1 = c.v1.memory && cgroupEvent(c.v1.memory, 'memory.oom_control', 'oom_kill') > 0;
    if (oom || oomV1) return 'memory';
  }
  if (c.kernel.pids) {
    const v2 = c.v2 && cgroupEvent(c.v2, 'pids.events', 'max') > 0;
    const v1 = c.v1.pids && cgroupEvent(c.v1.pids, 'pids.events', 'max') > 0;
    if (v2 || v1) return 'pids';
  }
  return null;
}
