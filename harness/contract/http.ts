/**
 * One HTTP request on a fresh connection, for readiness polls, the verifier and the services:
 * the lowest layer every other module may use. Times in ms.
 */
import http from 'node:http';

/** A response as the verifier needs it: status, lower-cased headers, raw body bytes. */
export interface ResponseLike {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer | string;
}

/**
 * Sends one request on a fresh connection (no keep-alive) and collects the whole response.
 * Rejects with an Error after `timeoutMs` (default 5000 ms) or on a socket error.
 */
export function fetchOnce(
  baseUrl: string,
  req: { method: string; path: string; headers?: Record<string, string>; body?: string },
  timeoutMs = 5000,
): Promise<ResponseLike> {
  return new Promise((resolve, reject) => {
    const url = new URL(req.path, baseUrl);
    const r = http.request(url, { method: req.method, headers: req.headers, agent: false }, (res) => {
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
