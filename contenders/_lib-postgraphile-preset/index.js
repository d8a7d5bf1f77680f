// @bakeoff/lib-postgraphile-preset: the ONE PostGraphile 5 preset of the bake-off, shared by
// postgraphile-express and postgraphile-fastify so the only difference between them is the
// HTTP server. Amber preset, the `public` schema of DATABASE_URL through node-postgres
// (makePgService, pg.Pool with its defaults: 10 connections), GraphiQL (Ruru), GraphQL over GET,
// websockets and watch mode off. Everything else is PostGraphile's default.
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { makePgService } from 'postgraphile/adaptors/pg';

/** The preset, reading DATABASE_URL at call time. */
export function makePreset(connectionString = process.env.DATABASE_URL) {
  if (!connectionString) throw new Error('DATABASE_URL is not set');
  return {
    extends: [PostGraphileAmberPreset],
    pgServices: [makePgService({ connectionString, schemas: ['public'] })],
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
