/**
 * One HTTP request (a fresh connection by default, or a caller's keep-alive agent), for readiness
 * polls, the verifier, the concurrency burst and the services: the lowest layer every other
 * module may use. Times in ms.
 */
import http from 'node:http';

/** A response as the verifier needs it: status, lower-cased headers, raw body bytes. */
export interface ResponseLike {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer | string;
}

/**
 * Sends one request and collects the whole response: on a fresh connection (no keep-alive) unless
 * `agent` is given (the burst's keep-alive agent, whose sockets it then reuses). Rejects with an
 * Error after `timeoutMs` (default 5000 ms) or on a socket error.
 */
export function fetchOnce(
  baseUrl: string,
  req: { method: string; path: string; headers?: Record<string, string>; body?: string },
  timeoutMs = 5000,
  agent: http.Agent | false = false,
): Promise<ResponseLike & { body: Buffer }> {
  return new Promise((resolve, reject) => {
    const url = new URL(req.path, baseUrl);
    const r = http.request(url, { method: req.method, headers: req.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    r.setTimeout(timeoutMs, () => r.destroy(new Error(`no response within ${timeoutMs} ms`)));
    r.on('error', reject);
    r.end(req.body);
  });
}
