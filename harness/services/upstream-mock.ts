/**
 * The upstream mock for the fan-out scenario (the nestjs-undici-performance report's "5 parallel
 * calls to a mock service", docs/sources.md). `GET /data` returns that report's mock shape
 * `{"id","name","timestamp","data":{"status","message","value"}}` (contract:
 * scenarios/upstream-body.schema.json), after UPSTREAM_DELAY_MS (default 0) ms.
 *
 * Run as its own process: HOST, PORT and UPSTREAM_DELAY_MS from the environment.
 */
import http from 'node:http';

const delay = Number(process.env.UPSTREAM_DELAY_MS ?? 0);
let next = 1;

const server = http.createServer((req, res) => {
  if (req.method !== 'GET' || req.url !== '/data') {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found');
    return;
  }
  const reply = () => {
    const body = JSON.stringify({
      id: next++,
      name: 'Mock Service Response',
      timestamp: new Date().toISOString(),
      data: { status: 'success', message: 'Response from mock service', value: Math.random() },
    });
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  };
  if (delay > 0) setTimeout(reply, delay);
  else reply();
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
