// node-http: Node's own `http` module, no framework. The baseline every row is compared with.
// Contract: scenarios/README.md. Fan-out: undici Pool (keep-alive, 128 connections).
import http from 'node:http';
import { Pool } from 'undici';

const HOST = process.env.HOST ?? '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);
const upstream = new Pool(process.env.UPSTREAM_URL ?? 'http://127.0.0.1:3001', { connections: 128 });

const USERS = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, name: `User ${i + 1}`, email: `user${i + 1}@example.com`, active: i % 2 === 0 }));
const JSON_TYPE = 'application/json; charset=utf-8';

function send(res, status, type, body) {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function fetchUpstream() {
  const { statusCode, body } = await upstream.request({ path: '/data', method: 'GET' });
  if (statusCode !== 200) {
    await body.dump();
    throw new Error(`upstream answered ${statusCode}`);
  }
  return body.json();
}

const server = http.createServer((req, res) => {
  const q = req.url.indexOf('?');
  const pathname = q === -1 ? req.url : req.url.slice(0, q);
  if (req.method === 'GET') {
    switch (pathname) {
      case '/ping': return send(res, 200, 'text/plain; charset=utf-8', 'pong');
      case '/json': return send(res, 200, JSON_TYPE, JSON.stringify({ message: 'Hello, World!' }));
      case '/echo': {
        const name = new URLSearchParams(q === -1 ? '' : req.url.slice(q + 1)).get('name') ?? '';
        return send(res, 200, JSON_TYPE, JSON.stringify({ echo: `Hello, ${name}!` }));
      }
      case '/users': return send(res, 200, JSON_TYPE, JSON.stringify(USERS));
      case '/fanout':
        return Promise.all([fetchUpstream(), fetchUpstream(), fetchUpstream(), fetchUpstream(), fetchUpstream()]).then(
          (data) => send(res, 200, JSON_TYPE, JSON.stringify({ message: 'aggregated', data })),
          (err) => send(res, 502, JSON_TYPE, JSON.stringify({ error: String(err.message) })),
        );
    }
  } else if (req.method === 'POST' && pathname === '/data') {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let received;
      try {
        received = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(res, 400, JSON_TYPE, JSON.stringify({ error: 'invalid JSON' }));
      }
      send(res, 200, JSON_TYPE, JSON.stringify({ received, processed: true }));
    });
    return;
  }
  send(res, 404, JSON_TYPE, JSON.stringify({ error: 'not found' }));
});

server.listen(PORT, HOST);
