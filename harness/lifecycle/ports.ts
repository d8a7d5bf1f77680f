/**
 * Port helpers: finding a free port, waiting until one is free, and naming the process that
 * holds a busy one (read from /proc on Linux).
 */
import fs from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A free TCP port on `host`, chosen by the kernel. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.once('error', reject);
    s.listen(0, host, () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** True when nothing listens on `host:port`. */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
}

/** Waits until `port` is free; returns false after `timeoutMs`. */
export async function waitPortFree(port: number, host = '127.0.0.1', timeoutMs = 5000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await isPortFree(port, host)) return true;
    await sleep(25);
  }
  return false;
}

/** Where each open file descriptor of `pid` points (`socket:[inode]`, a path, …), from /proc; [] when gone. */
export function fdTargets(pid: number | string): string[] {
  let fds: string[] = [];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const fd of fds) {
    try {
      out.push(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      /* closed meanwhile */
    }
  }
  return out;
}

/** "pid 123 (node server.js)" for the process listening on `port`, or undefined when unknown. */
export function describePortHolder(port: number): string | undefined {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const inode = cols[9];
      if (inode !== undefined && cols[1]?.endsWith(`:${hex}`) && cols[3] === '0A') inodes.add(inode);
    }
  }
  if (!inodes.size) return undefined;
  let pids: string[] = [];
  try {
    pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    for (const target of fdTargets(pid)) {
      const m = /^socket:\[(\d+)\]$/.exec(target);
      const inode = m?.[1];
      if (inode !== undefined && inodes.has(inode)) {
        let cmd = '';
        try {
          cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
        } catch {
          /* gone */
        }
        return `pid ${pid} (${cmd.slice(0, 120) || 'unknown command'})`;
      }
    }
  }
  return undefined;
}

/** One listening TCP socket of a process. */
export interface Listener {
  pid: number;
  /** "127.0.0.1", "0.0.0.0", "::1", "::", "::ffff:127.0.0.1" … */
  address: string;
  port: number;
  /** True for 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104. */
  loopback: boolean;
}

/** Decodes /proc/net/tcp's little-endian hex IPv4 address. */
function ipv4(hex: string): string {
  const n = Number.parseInt(hex, 16);
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24].join('.');
}

/** Decodes /proc/net/tcp6's address: four 32-bit words, each little-endian. */
function ipv6(hex: string): string {
  const bytes: number[] = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8);
    for (let b = 3; b >= 0; b--) bytes.push(Number.parseInt(word.slice(b * 2, b * 2 + 2), 16));
  }
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 255 && bytes[11] === 255)
    return `::ffff:${bytes.slice(12).join('.')}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  // Shorten the longest run of zero groups (RFC 5952).
  let best: [start: number, length: number] = [-1, 0];
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best[1]) best = [i, j - i];
    i = j;
  }
  if (best[1] < 2) return groups.join(':');
  return `${groups.slice(0, best[0]).join(':')}::${groups.slice(best[0] + best[1]).join(':')}`;
}

/** True when `address` (as listeningAddresses gives it) is a loopback address. */
export function isLoopbackAddress(address: string): boolean {
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}

/** Listening sockets by inode, from /proc/net/tcp and /proc/net/tcp6. */
function listeningInodes(): Map<string, { address: string; port: number }> {
  const out = new Map<string, { address: string; port: number }>();
  for (const [f, decode] of [
    ['/proc/net/tcp', ipv4],
    ['/proc/net/tcp6', ipv6],
  ] as const) {
    let text = '';
    try {
      text = fs.readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const local = cols[1];
      const inode = cols[9];
      if (cols.length <= 9 || cols[3] !== '0A' || local === undefined || inode === undefined) continue;
      const [addr = '', port = ''] = local.split(':');
      out.set(inode, { address: decode(addr), port: Number.parseInt(port, 16) });
    }
  }
  return out;
}

/**
 * True when some socket on this machine LISTENs on `port` (any address), from /proc/net/tcp{,6}.
 * Unlike isPortFree (a bind test), sockets of killed processes still closing (FIN_WAIT, TIME_WAIT)
 * do not count: they serve nobody.
 */
export function isListening(port: number): boolean {
  return [...listeningInodes().values()].some((l) => l.port === port);
}

/**
 * Every process in the tree of `root`: itself, its descendants (by parent links) and every
 * member of its process group (a daemon that re-parented to init keeps its group). From /proc.
 */
export function processTree(root: number): number[] {
  const parent = new Map<number, number>();
  const group = new Map<number, number>();
  let dirs: string[] = [];
  try {
    dirs = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [root];
  }
  for (const d of dirs) {
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(d), Number(rest[1]));
      group.set(Number(d), Number(rest[2]));
    } catch {
      /* gone */
    }
  }
  const out = new Set<number>([root]);
  for (const [pid, pgid] of group) if (pgid === root) out.add(pid);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent)
      if (out.has(ppid) && !out.has(pid)) {
        out.add(pid);
        grew = true;
      }
  }
  return [...out];
}

/**
 * The TCP sockets in LISTEN state held by `pids` (read from /proc/net/tcp, /proc/net/tcp6 and
 * each pid's /proc/<pid>/fd socket inodes). Empty off Linux or when /proc is unreadable.
 */
export function listeningAddresses(pids: number[]): Listener[] {
  const listening = listeningInodes();
  const out: Listener[] = [];
  const seen = new Set<string>();
  for (const pid of pids) {
    for (const target of fdTargets(pid)) {
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      const l = inode ? listening.get(inode) : undefined;
      if (!l || seen.has(`${inode}`)) continue;
      seen.add(`${inode}`);
      out.push({ pid, ...l, loopback: isLoopbackAddress(l.address) });
    }
  }
  return out;
}
