/**
 * Starts the upstream mock (services/upstream-mock.ts) pinned to the services cores and waits
 * until `GET /data` answers. Throws Error when it does not start within 10 s. `alive()` tells
 * whether it still answers (the scheduler asks after each measured window of a fan-out cell, as it
 * asks the database), `gone()` whether its process has exited.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetchOnce } from '../contract/http.ts';
import { freePort } from '../lifecycle/ports.ts';
import { hasExited, pinnedCommand, spawnTracked, stopGroup } from '../lifecycle/processes.ts';

export interface Upstream {
  url: string;
  pid: number;
  /** True while the mock's process runs and `GET /data` answers 200 within 1 s. */
  alive(): Promise<boolean>;
  /** True once the mock's process has exited (killed, crashed). */
  gone(): boolean;
  stop(): Promise<void>;
}

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'upstream-mock.ts');

/** Starts the mock on a free port of `host`; `delayMs` is UPSTREAM_DELAY_MS. */
export async function startUpstream(opts: { host: string; cpus: string | null; delayMs: number }): Promise<Upstream> {
  const port = await freePort(opts.host);
  const [cmd, ...args] = pinnedCommand(opts.cpus, [process.execPath, '--disable-warning=ExperimentalWarning', SCRIPT]);
  const child = spawnTracked(cmd, args, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, HOST: opts.host, PORT: String(port), UPSTREAM_DELAY_MS: String(opts.delayMs) },
  });
  const url = `http://${opts.host}:${port}`;
  const end = Date.now() + 10_000;
  while (Date.now() < end) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetchOnce(url, { method: 'GET', path: '/data' }, 1000)).status === 200 && child.pid !== undefined) {
        const gone = () => hasExited(child);
        const alive = async () => {
          if (gone()) return false;
          try {
            return (await fetchOnce(url, { method: 'GET', path: '/data' }, 1000)).status === 200 && !gone();
          } catch {
            return false;
          }
        };
        return { url, pid: child.pid, alive, gone, stop: () => stopGroup(child, 1000) };
      }
    } catch {
      /* not yet */
    }
    await sleep(20);
  }
  await stopGroup(child, 500);
  throw new Error(`the upstream mock did not start on ${url}`);
}
