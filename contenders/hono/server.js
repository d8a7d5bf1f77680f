// hono: the ctx-style contender (c.json(), await c.req.json()), on @hono/node-server.
// It stands in for the Nexus framework of the Nexus/Express/Fastify report (docs/sources.md),
// which is not in the registry.
// Contract: scenarios/README.md. Fan-out: undici Pool.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
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

// c.json() sends `application/json` without a charset; the contract asks for `; charset=utf-8`.
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

const app = new Hono();
app.get('/ping', (c) => c.text('pong'));
app.get('/json', (c) => c.json({ message: 'Hello, World!' }, 200, JSON_HEADERS));
app.get('/echo', (c) => c.json({ echo: `Hello, ${c.req.query('name') ?? ''}!` }, 200, JSON_HEADERS));
app.get('/users', (c) => c.json(USERS, 200, JSON_HEADERS));
app.post('/data', async (c) => c.json({ received: await c.req.json(), processed: true }, 200, JSON_HEADERS));
app.get('/fanout', async (c) => {
  const data = await Promise.all([fetchUpstream(), fetchUpstream(), fetchUpstream(), fetchUpstream(), fetchUpstream()]);
  return c.json({ message: 'aggregated', data }, 200, JSON_HEADERS);
});

serve({ fetch: app.fetch, port: PORT, hostname: HOST });
