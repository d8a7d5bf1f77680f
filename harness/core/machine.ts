/**
 * Which machine a run, a reference record or a self-test ran on, and whether two of them ran on
 * the same kind of machine. A CPU's marketing name is not enough: cloud VMs of different
 * generations report the same "AMD EPYC", and a record of one reads express 38% higher against
 * node-http on another (docs/measurements.md, "A record holds for its own machine only").
 *
 * Two results ran on the same kind of machine when they share the CPU name, the kernel release
 * (os.release(), in `os`), the core count and the CPU identity: vendor, family, model and stepping
 * (/proc/cpuinfo, the first processor) and the kernel's answer for each speculative-execution
 * issue (/sys/devices/system/cpu/vulnerabilities/*, kernel docs "admin-guide/hw-vuln"). A
 * mitigation such as SRSO's "Safe RET" changes what each system call costs, and so does a kernel
 * build, so either makes another machine here; a kernel upgrade starts a new machine's records.
 * The microcode revision is stored (a reader may want it) but not matched: hosts of one fleet
 * update it on their own schedule.
 *
 * Results written before the identity was recorded have none (`cpu` absent): they match each
 * other by CPU name, kernel release and cores only (the two VMs of 2026-11-27 to 30 differ there:
 * kernels 6.18.44-fc-v669 and -fc-v657), and a result with an identity never matches one without.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The CPU identity of a machine: /proc/cpuinfo's first processor and the kernel's vulnerability files. */
export interface CpuIdentity {
  /** `vendor_id`, e.g. "AuthenticAMD". */
  vendor: string;
  /** `cpu family`, `model` and `stepping`, as decimal numbers (26, 2, 1 for a Zen 5 EPYC). */
  family: number;
  model: number;
  stepping: number;
  /** `microcode`, e.g. "0x1000065" ('' when not shown); stored, not matched. */
  microcode: string;
  /** File name → its one line, for every file in /sys/devices/system/cpu/vulnerabilities ({} when absent). */
  mitigations: Record<string, string>;
}

/** The machine facts that identity matching reads (RunMeta's `machine`, a reference record's `machine`). */
export interface MachineFacts {
  /** The CPU's name (os.cpus()[0].model), e.g. "AMD EPYC". */
  cpuModel: string;
  /** "Linux 6.18.44-fc-v657" (os.type() and os.release()); absent in some older records. */
  os?: string | undefined;
  /** Cores the harness may use (os.availableParallelism()); absent in some older records. */
  cores?: number | undefined;
  /** Absent in results written before it was recorded, and off Linux. */
  cpu?: CpuIdentity | undefined;
}

/** Where cpuIdentity reads (tests point them at fixture files). */
export interface IdentitySources {
  cpuinfo: string;
  vulnerabilities: string;
}

const LINUX: IdentitySources = {
  cpuinfo: '/proc/cpuinfo',
  vulnerabilities: '/sys/devices/system/cpu/vulnerabilities',
};

/**
 * This machine's CPU identity, or undefined when /proc/cpuinfo is unreadable or lacks a vendor,
 * family, model or stepping (off Linux, or on a CPU that does not report them, e.g. some Arm
 * kernels). Never throws.
 */
export function cpuIdentity(from: IdentitySources = LINUX): CpuIdentity | undefined {
  let text: string;
  try {
    text = fs.readFileSync(from.cpuinfo, 'utf8');
  } catch {
    return undefined;
  }
  // The first processor's block only.
  const first = text.split(/\n\s*\n/)[0] ?? '';
  const field = (name: string): string | undefined =>
    first
      .split('\n')
      .map((l) => l.split(':'))
      .find(([k]) => k?.trim() === name)?.[1]
      ?.trim();
  const vendor = field('vendor_id');
  const [family, model, stepping] = ['cpu family', 'model', 'stepping'].map((k) => Number(field(k)));
  if (!vendor || ![family, model, stepping].every((x) => Number.isInteger(x))) return undefined;
  return {
    vendor,
    family: family as number,
    model: model as number,
    stepping: stepping as number,
    microcode: field('microcode') ?? '',
    mitigations: readMitigations(from.vulnerabilities),
  };
}

/** Each vulnerability file's one line, by file name ({} when the folder is missing). */
function readMitigations(dir: string): Record<string, string> {
  let names: string[];
  try {
    names = fs.readdirSync(dir).sort();
  } catch {
    return {};
  }
  const out: Record<string, string> = {};
  for (const n of names) {
    try {
      out[n] = fs.readFileSync(path.join(dir, n), 'utf8').trim();
    } catch {
      // An unreadable file is left out; the others still identify the kernel.
    }
  }
  return out;
}

/**
 * The string two machines must share to match (module docstring): CPU name, kernel release, cores,
 * then vendor, family, model, stepping and every mitigation line, or "unidentified" in their place
 * for facts without a CPU identity.
 */
export function machineKey(m: MachineFacts): string {
  const c = m.cpu;
  const host = [m.cpuModel, m.os ?? '', m.cores ?? 0];
  if (!c) return JSON.stringify([...host, 'unidentified']);
  const mit = Object.entries(c.mitigations)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(';');
  return JSON.stringify([...host, c.vendor, c.family, c.model, c.stepping, mit]);
}

/** True when `a` and `b` are the same kind of machine (`machineKey` equal). */
export const sameMachine = (a: MachineFacts, b: MachineFacts): boolean => machineKey(a) === machineKey(b);

/**
 * A reader's name for the machine: "AMD EPYC (family 26, model 2, stepping 1; Linux
 * 6.18.44-fc-v657)", or "AMD EPYC (Linux 6.18.44-fc-v669; no CPU identity recorded)" for older
 * results. Mitigations are left out: they differ in a word or two and are read in meta.json.
 */
export function machineName(m: MachineFacts): string {
  const c = m.cpu;
  const kernel = m.os || 'kernel unknown';
  return c
    ? `${m.cpuModel} (family ${c.family}, model ${c.model}, stepping ${c.stepping}; ${kernel})`
    : `${m.cpuModel} (${kernel}; no CPU identity recorded)`;
}
