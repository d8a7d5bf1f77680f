// @bakeoff/lib-postgraphile-preset: the ONE PostGraphile 5 preset of the bake-off, shared by
// postgraphile-express and postgraphile-fastify so the only difference between them is the
// HTTP server. Amber preset, the `public` schema of DATABASE_URL through node-postgres
// (makePgService, pg.Pool with its defaults: 10 connections; a 5 s connect/queue timeout so a
// lost database gives errors, not hung requests), GraphiQL (Ruru), GraphQL over GET,
// websockets and watch mode off. Everything else is PostGraphile's default.
// `databaseHealth(preset)` is the health-db scenario's database round trip on the same pool.
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { makePgService } from 'postgraphile/adaptors/pg';

/** How long a request may wait for a pool connection (a new connection or a free one), ms. */
export const POOL_WAIT_MS = 5000;

/** How long /health waits for `SELECT 1` (pool wait, connect and query together), ms. */
export const HEALTH_TIMEOUT_MS = 2000;

/** The preset, reading DATABASE_URL at call time. */
export function makePreset(connectionString = process.env.DATABASE_URL) {
  if (!connectionString) throw new Error('DATABASE_URL is not set');
  return {
    extends: [PostGraphileAmberPreset],
    pgServices: [
      makePgService({ connectionString, poolConfig: { connectionTimeoutMillis: POOL_WAIT_MS }, schemas: ['public'] }),
    ],
    grafserv: {
      graphqlPath: '/graphql',
      graphiql: false,
      graphqlOverGET: false,
      websockets: false,
      watch: false,
    },
    grafast: { explain: false },
  };
}

/**
 * PostGraphile (grafserv) answers `application/graphql-response+json` to a request without an
 * Accept header or with `*\/*` (the GraphQL-over-HTTP "watershed" rule). The bake-off contract
 * asks for `application/json; charset=utf-8`, what grafserv sends to `Accept: application/json`:
 * the servers call this on the request headers before grafserv sees them.
 */
export function preferJson(headers) {
  const accept = headers.accept;
  if (accept === undefined || accept === '' || accept === '*/*') headers.accept = 'application/json';
}

/**
 * The health-db scenario's check: `SELECT 1` through the preset's own pg pool (grafserv's
 * pgServices[0]), with a HEALTH_TIMEOUT_MS deadline. Resolves `{ status: 200, body: { status:
 * 'ok', database: 'up' } }`, or 503 with `{ status: 'error', database: 'down' }` when the query
 * fails or misses the deadline (a stopped or unreachable PostgreSQL). Never rejects.
 */
export async function databaseHealth(preset) {
  const pool = preset.pgServices[0].adaptorSettings.pool;
  let timer;
  const up = await Promise.race([
    pool.query({ text: 'SELECT 1 AS ok', query_timeout: HEALTH_TIMEOUT_MS }).then(
      (r) => r.rows[0]?.ok === 1,
      () => false,
    ),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
  return up
    ? { status: 200, body: { status: 'ok', database: 'up' } }
    : { status: 503, body: { status: 'error', database: 'down' } };
}
