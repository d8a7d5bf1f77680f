// express: Express 5 with its own JSON body parser (express.json) and res.json.
// Contract: scenarios/README.md. Fan-out: undici Pool (keep-alive, 128 connections).
import express from 'express';
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

const app = express();
app.disable('x-powered-by');

app.get('/ping', (req, res) => { res.type('text/plain').send('pong'); });
app.get('/json', (req, res) => { res.json({ message: 'Hello, World!' }); });
app.get('/echo', (req, res) => { res.json({ echo: `Hello, ${req.query.name ?? ''}!` }); });
app.get('/users', (req, res) => { res.json(USERS); });
app.post('/data', express.json(), (req, res) => { res.json({ received: req.body, processed: true }); });
app.get('/fanout', async (req, res) => {
  // Express 5 forwards a rejected promise to the error handler.
  const data = await Promise.all([fetchUpstream(), fetchUpstream(), fetchUpstream(), fetchUpstream(), fetchUpstream()]);
  res.json({ message: 'aggregated', data });
});

app.listen(PORT, HOST);
