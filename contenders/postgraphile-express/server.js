// postgraphile-express: PostGraphile 5 (Amber preset, @bakeoff/lib-postgraphile-preset) served by
// grafserv's Express adapter on Express 5. Contract: scenarios/README.md.
import { createServer } from 'node:http';
import express from 'express';
import { postgraphile } from 'postgraphile';
import { grafserv } from 'postgraphile/grafserv/express/v4';
import { databaseHealth, makePreset, preferJson } from '@bakeoff/lib-postgraphile-preset';

const HOST = process.env.HOST ?? '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const app = express();
app.disable('x-powered-by');
const server = createServer(app);

app.get('/ping', (req, res) => { res.type('text/plain; charset=utf-8').send('pong'); });
// json: the template's /api root (a small JSON object, no database) for the source's /api claim.
app.get('/json', (req, res) => { res.json({ message: 'Hello, World!' }); });
app.post('/graphql', (req, res, next) => { preferJson(req.headers); next(); });

const preset = makePreset();
// health-db: SELECT 1 on grafserv's own pg pool; 503 when PostgreSQL is gone (at most 2 s).
app.get('/health', async (req, res) => {
  const h = await databaseHealth(preset);
  res.status(h.status).json(h.body);
});

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
await serv.addTo(app, server);
await serv.ready?.();

server.listen(PORT, HOST);
