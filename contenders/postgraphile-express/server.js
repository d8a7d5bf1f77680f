// postgraphile-express: PostGraphile 5 (Amber preset, @bakeoff/lib-postgraphile-preset) served by
// grafserv's Express adapter on Express 5. Contract: scenarios/README.md.
import { createServer } from 'node:http';
import express from 'express';
import { postgraphile } from 'postgraphile';
import { grafserv } from 'postgraphile/grafserv/express/v4';
import { makePreset, preferJson } from '@bakeoff/lib-postgraphile-preset';

const HOST = process.env.HOST ?? '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const app = express();
app.disable('x-powered-by');
const server = createServer(app);

app.get('/ping', (req, res) => { res.type('text/plain; charset=utf-8').send('pong'); });
app.post('/graphql', (req, res, next) => { preferJson(req.headers); next(); });

const pgl = postgraphile(makePreset());
const serv = pgl.createServ(grafserv);
await serv.addTo(app, server);
await serv.ready?.();

server.listen(PORT, HOST);
