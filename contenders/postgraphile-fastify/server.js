// postgraphile-fastify: PostGraphile 5 (Amber preset, @bakeoff/lib-postgraphile-preset) served by
// grafserv's Fastify adapter on Fastify 5. Contract: scenarios/README.md.
import Fastify from 'fastify';
import { postgraphile } from 'postgraphile';
import { grafserv } from 'postgraphile/grafserv/fastify/v5';
import { databaseHealth, makePreset, preferJson } from '@bakeoff/lib-postgraphile-preset';

const HOST = process.env.HOST ?? '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const app = Fastify({ logger: false });

app.get('/ping', async (req, reply) => { reply.type('text/plain; charset=utf-8'); return 'pong'; });
// json: the template's /api root (a small JSON object, no database) for the source's /api claim.
app.get('/json', async () => ({ message: 'Hello, World!' }));
app.addHook('onRequest', async (req) => { if (req.url === '/graphql') preferJson(req.headers); });

const preset = makePreset();
// health-db: SELECT 1 on grafserv's own pg pool; 503 when PostgreSQL is gone (at most 2 s).
app.get('/health', async (req, reply) => {
  const h = await databaseHealth(preset);
  reply.code(h.status);
  return h.body;
});

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
await serv.addTo(app);
await serv.ready?.();

await app.listen({ port: PORT, host: HOST });
