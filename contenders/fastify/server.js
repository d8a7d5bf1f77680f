// fastify: Fastify 5 used idiomatically: response schemas (fast-json-stringify), its own JSON
// body parser, logger off. Contract: scenarios/README.md. Fan-out: undici Pool.
import Fastify from 'fastify';
import { Pool } from 'undici';

const HOST = process.env.HOST ?? '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);
const upstream = new Pool(process.env.UPSTREAM_URL ?? 'http://127.0.0.1:3001', { connections: 128 });
const USERS = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, name: `User ${i + 1}`, email: `user${i + 1}@example.com`, active: i % 2 === 0 }));

async function fetchUpstream() {
  const { statusCode, body } = await upstream.request({ path: '/data', method: 'GET' });
  if (statusCode !== 200) {
    await body.dump();
    throw new Error(`upstream answered ${statusCode}`);
  }
  return body.json();
}

const upstreamItem = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    timestamp: { type: 'string' },
    data: {
      type: 'object',
      properties: { status: { type: 'string' }, message: { type: 'string' }, value: { type: 'number' } },
    },
  },
};

const app = Fastify({ logger: false });

app.get('/ping', async (req, reply) => { reply.type('text/plain; charset=utf-8'); return 'pong'; });
app.get('/json', { schema: { response: { 200: { type: 'object', properties: { message: { type: 'string' } } } } } },
  async () => ({ message: 'Hello, World!' }));
app.get('/echo', {
  schema: {
    querystring: { type: 'object', properties: { name: { type: 'string' } } },
    response: { 200: { type: 'object', properties: { echo: { type: 'string' } } } },
  },
}, async (req) => ({ echo: `Hello, ${req.query.name ?? ''}!` }));
app.get('/users', {
  schema: {
    response: {
      200: {
        type: 'array',
        items: {
          type: 'object',
          properties: { id: { type: 'integer' }, name: { type: 'string' }, email: { type: 'string' }, active: { type: 'boolean' } },
        },
      },
    },
  },
}, async () => USERS);
app.post('/data', {
  schema: {
    body: { type: 'object' },
    response: { 200: { type: 'object', properties: { received: { type: 'object', additionalProperties: true }, processed: { type: 'boolean' } } } },
  },
}, async (req) => ({ received: req.body, processed: true }));
app.get('/fanout', {
  schema: { response: { 200: { type: 'object', properties: { message: { type: 'string' }, data: { type: 'array', items: upstreamItem } } } } },
}, async () => {
  const data = await Promise.all([fetchUpstream(), fetchUpstream(), fetchUpstream(), fetchUpstream(), fetchUpstream()]);
  return { message: 'aggregated', data };
});

await app.listen({ port: PORT, host: HOST });
