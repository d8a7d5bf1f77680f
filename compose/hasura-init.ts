/**
 * The init of the compose Hasura (service `hasura-init`): sends every metadata request of
 * contenders/hasura/metadata/*.json, in file-name order, to `POST /v1/metadata` with the admin
 * secret (01: pg_track_table public.users, 02: select permission for the unauthorized role
 * `public`), then runs the contender's own `graphql.usersQuery` at /v1/graphql WITHOUT the secret,
 * as the harness will, and checks that 10 rows come back.
 *
 * It starts together with `hasura` (which depends on it being started, so `up hasura` runs it)
 * and first waits for Hasura's GET /healthz, up to HASURA_INIT_TIMEOUT_MS (default 180000).
 * With HASURA_INIT_STAY=1 (as in compose) it then writes HASURA_INIT_DONE_FILE
 * (/tmp/hasura-init.done) and stays idle until stopped: its health check turns healthy on that
 * file, so `docker compose up --wait hasura` returns only when the table is tracked. (A service
 * that exits, even with 0, makes `up --wait` fail.) Without it, it exits 0 when done.
 *
 * Idempotent: a request Hasura answers with `already-tracked` / `already-exists` counts as done.
 * Exit 1 with Hasura's answer on any other failure.
 *
 * Environment: HASURA_URL (default http://hasura:8080), HASURA_GRAPHQL_ADMIN_SECRET (required).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** contenders/hasura, beside compose/ (the same layout in the container: /srv). */
export const CONTENDER_DIR = path.join(HERE, '..', 'contenders', 'hasura');
/** Hasura's answers that mean "this was applied before". */
const ALREADY = new Set(['already-tracked', 'already-exists']);

export interface InitOptions {
  baseUrl: string;
  adminSecret: string;
  contenderDir?: string;
  /** How long to wait for GET /healthz, ms. */
  healthTimeoutMs?: number;
  log?: (line: string) => void;
}

/** The JSON members of a Hasura reply the init reads (metadata errors, GraphQL errors). */
interface HasuraReply {
  code?: string;
  errors?: unknown;
  [key: string]: unknown;
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; json: HasuraReply | null; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: HasuraReply | null = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* reported with the text */
  }
  return { status: res.status, json, text };
}

async function waitHealthy(baseUrl: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < until) {
    try {
      const r = await fetch(`${baseUrl}/healthz`);
      if (r.status === 200) return;
      last = `status ${r.status}`;
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`Hasura at ${baseUrl} is not healthy after ${timeoutMs} ms (${last})`);
}

/** The metadata requests, in file-name order. */
export function metadataRequests(
  contenderDir = CONTENDER_DIR,
): { file: string; body: { type: string; args: unknown } }[] {
  const dir = path.join(contenderDir, 'metadata');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, body: JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) }));
}

/** The value at a dot path such as `data.users`. */
function at(v: unknown, dotPath: string): unknown {
  return dotPath.split('.').reduce<unknown>((o, k) => (o == null ? undefined : (o as Record<string, unknown>)[k]), v);
}

/** Applies the metadata and checks the users query. Throws with Hasura's answer on failure. */
export async function initHasura(o: InitOptions): Promise<void> {
  const log = o.log ?? console.log;
  const dir = o.contenderDir ?? CONTENDER_DIR;
  if (!o.adminSecret) throw new Error('HASURA_GRAPHQL_ADMIN_SECRET is empty: set it in compose/.env');
  await waitHealthy(o.baseUrl, o.healthTimeoutMs ?? 180_000);
  for (const { file, body } of metadataRequests(dir)) {
    const r = await post(`${o.baseUrl}/v1/metadata`, body, { 'x-hasura-admin-secret': o.adminSecret });
    if (r.status === 200) log(`${file}: ${body.type} applied`);
    else if (ALREADY.has(r.json?.code ?? '')) log(`${file}: ${body.type} already applied (${r.json?.code})`);
    else throw new Error(`${file}: ${body.type} failed with status ${r.status}: ${r.text.slice(0, 500)}`);
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'contender.json'), 'utf8'));
  const { usersQuery, usersPath } = manifest.graphql as { usersQuery: string; usersPath: string };
  const r = await post(`${o.baseUrl}/v1/graphql`, { query: usersQuery }, {});
  const rows = at(r.json, usersPath);
  if (r.status !== 200 || r.json?.errors || !Array.isArray(rows) || rows.length !== 10) {
    throw new Error(
      `the users query without the admin secret did not return 10 rows at ${usersPath} (status ${r.status}): ${r.text.slice(0, 500)}`,
    );
  }
  log(
    `users query as the unauthorized role: ${rows.length} rows, first id ${(rows[0] as { id: unknown }).id}; Hasura is ready`,
  );
}

if (import.meta.main) {
  try {
    await initHasura({
      baseUrl: (process.env.HASURA_URL ?? 'http://hasura:8080').replace(/\/$/, ''),
      adminSecret: process.env.HASURA_GRAPHQL_ADMIN_SECRET ?? '',
      healthTimeoutMs: Number(process.env.HASURA_INIT_TIMEOUT_MS ?? 180_000),
    });
  } catch (e) {
    console.error(`hasura-init: ${(e as Error).message}`);
    process.exit(1);
  }
  if (process.env.HASURA_INIT_STAY === '1') {
    // Handlers first, then the done file: whoever sees the file may stop us at once.
    const idle = setInterval(() => {}, 1 << 30);
    for (const sig of ['SIGTERM', 'SIGINT'] as const)
      process.on(sig, () => {
        clearInterval(idle);
        process.exit(0);
      });
    fs.writeFileSync(process.env.HASURA_INIT_DONE_FILE ?? '/tmp/hasura-init.done', `${new Date().toISOString()}\n`);
    console.log('hasura-init: done; staying idle as the readiness marker of `up --wait hasura`');
  }
}
