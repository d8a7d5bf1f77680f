/**
 * The harness's watchdog: one tiny `sh` per harness, in its own session, ignoring INT/TERM/HUP,
 * told over a pipe the process group of every child, the harness's cgroup folders and the fallback
 * token (lifecycle/processes.ts). When the pipe closes — the harness exited, however it died — it
 * SIGKILLs every group still listed, kills and removes the cgroup folders, and kills every process
 * carrying the token, then exits.
 */
import { type ChildProcess, spawn } from 'node:child_process';

// The watchdog reads "+PGID" / "-PGID" lines, "H<v2 cgroup folder>", "V<v1 cgroup folder>" and
// "T<token prefix>"; at end of input it SIGKILLs the groups still listed, kills and removes the v2
// folder, thaws, kills and removes each v1 folder's children and the folder, and kills every
// process whose environment carries the token.
const WATCHDOG_SCRIPT = `trap '' INT TERM HUP
g=' '; h=''; t=''; v=''
while IFS= read -r l; do
  case "$l" in
    +*) g="$g\${l#+} " ;;
    -*) n=" \${l#-} "; case "$g" in *"$n"*) g="\${g%%"$n"*} \${g#*"$n"}" ;; esac ;;
    H*) h="\${l#H}" ;;
    V*) v="$v \${l#V}" ;;
    T*) t="\${l#T}" ;;
  esac
done
for d in $v; do
  for c in "$d"/*/; do
    [ -d "$c" ] || continue
    [ -f "$c/freezer.state" ] && echo THAWED > "$c/freezer.state" 2>/dev/null
    for p in $(cat "$c/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
  done
done
for p in $g; do kill -9 "-$p" 2>/dev/null; done
if [ -n "$h" ] && [ -d "$h" ]; then
  echo 1 > "$h/cgroup.kill" 2>/dev/null
  i=0
  while [ $i -lt 100 ]; do
    for d in "$h"/*/; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done
    rmdir "$h" 2>/dev/null && break
    i=$((i+1)); sleep 0.05
  done
fi
if [ -n "$t" ]; then
  for f in /proc/[0-9]*/environ; do
    if grep -qa "BENCH_PROC_TOKEN=$t" "$f" 2>/dev/null; then p=\${f#/proc/}; kill -9 "\${p%/environ}" 2>/dev/null; fi
  done
fi
i=0
while [ -n "$v" ] && [ $i -lt 100 ]; do
  left=''
  for d in $v; do
    [ -d "$d" ] || continue
    for c in "$d"/*/; do [ -d "$c" ] && rmdir "$c" 2>/dev/null; done
    rmdir "$d" 2>/dev/null || left="$left $d"
  done
  v="$left"; i=$((i+1)); [ -n "$v" ] && sleep 0.05
done
exit 0`;

let watchdog: ChildProcess | null | undefined;
/** Tells the watchdog (started on first use) a line; a no-op when it could not be started. */
export function tellWatchdog(line: string): void {
  if (watchdog === undefined) {
    try {
      watchdog = spawn('sh', ['-c', WATCHDOG_SCRIPT], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
      watchdog.once('error', () => {
        watchdog = null;
      });
      watchdog.stdin?.on('error', () => {});
      watchdog.unref();
      // The pipe is a net.Socket at run time (it has unref); its declared type, Writable, does not say so.
      (watchdog.stdin as (typeof watchdog.stdin & { unref?: () => void }) | null)?.unref?.();
    } catch {
      watchdog = null;
    }
  }
  if (watchdog?.stdin?.writable) watchdog.stdin.write(`${line}\n`);
}

/** The pid of this harness's watchdog (see the module comment), or null when none runs. */
export function watchdogPid(): number | null {
  return watchdog?.pid ?? null;
}
