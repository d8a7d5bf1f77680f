// __NAME__: a new contender, copied from contenders/_template by `just new __NAME__`.
// It passes `just verify __NAME__` as it is (plain node:http); replace the handlers with your
// stack's own, keeping the contract in scenarios/README.md:
//   HOST/PORT from the environment, UPSTREAM_URL for /fanout, JSON as
//   `application/json; charset=utf-8`, ping as `text/plain; charset=utf-8`.
import http from 'node:http';

const HOST = process.env.HOST ?? '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);
const UPSTREAM_URL = process.env.UPSTREAM_URL ?? 'http://127.0.0.1:3001';
const USERS = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, name: `User ${i + 1}`, email: `user${i + 1}@example.com`, active: i % 2 === 0 }));

function reply(res, status, value, type = 'application/json; charset=utf-8') {
  const body = typeof value === 'string' ? value : JSON.stringify(value);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
}

async function route(req, res) {
  const url = new URL(req.url, 'http://localhost');
  const key = `${req.method} ${url.pathname}`;
  if (key === 'GET /ping') return reply(res, 200, 'pong', 'text/plain; charset=utf-8');
  if (key === 'GET /json') return reply(res, 200, { message: 'Hello, World!' });
  if (key === 'GET /echo') return reply(res, 200, { echo: `Hello, ${url.searchParams.get('name') ?? ''}!` });
  if (key === 'GET /users') return reply(res, 200, USERS);
  if (key === 'POST /data') {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    return reply(res, 200, { received: JSON.parse(Buffer.concat(chunks).toString()), processed: true });
  }
  if (key === 'GET /fanout') {
    const one = () => fetch(`${UPSTREAM_URL}/data`).then((r) => r.json());
    return reply(res, 200, { message: 'aggregated', data: await Promise.all([one(), one(), one(), one(), one()]) });
  }
  reply(res, 404, { error: 'not found' });
}

http.createServer((req, res) => {
  route(req, res).catch((err) => reply(res, 500, { error: String(err) }));
}).listen(PORT, HOST);
