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
 * `agent` is given (the burst's keep-alive agent, whose sockets it then reuses).
 *
 * Deadlines, for the whole response and not only between bytes (a body that trickles a byte a
 * second, or never ends, is cut): the complete response within `timeoutMs` (default 5000 ms) of
 * the request, and once its head has come, the rest of the body within `bodyTimeoutMs` (default
 * `timeoutMs`) of the head, whichever is sooner. Rejects with an Error saying which deadline
 * passed ("no response within 5000 ms"; "the body did not end within 1000 ms of the response head
 * (status 200, body still open)") or on a socket error; the connection is destroyed.
 */
export function fetchOnce(
  baseUrl: string,
  req: { method: string; path: string; headers?: Record<string, string>; body?: string },
  timeoutMs = 5000,
  agent: http.Agent | false = false,
  bodyTimeoutMs = timeoutMs,
): Promise<ResponseLike & { body: Buffer }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let timer: NodeJS.Timeout | undefined;
    // The deadline's own reason wins over the socket error that destroying the request causes.
    let late: Error | null = null;
    const cut = (e: Error) => {
      late = e;
      r.destroy(e);
    };
    const fail = (e: Error) => {
      clearTimeout(timer);
      reject(late ?? e);
    };
    const url = new URL(req.path, baseUrl);
    const r = http.request(url, { method: req.method, headers: req.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      clearTimeout(timer);
      const left = Math.max(0, timeoutMs - (performance.now() - t0));
      const [ms, what] =
        bodyTimeoutMs < left
          ? [bodyTimeoutMs, `within ${bodyTimeoutMs} ms of the response head`]
          : [left, `within ${timeoutMs} ms of the request`];
      timer = setTimeout(
        () =>
          cut(
            new Error(
              `the body did not end ${what} (status ${res.statusCode}, ${bytes ? 'body still open' : 'no body byte yet'}): a response must end`,
            ),
          ),
        ms,
      );
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        bytes += c.length;
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
      res.on('error', fail);
    });
    timer = setTimeout(() => cut(new Error(`no response within ${timeoutMs} ms`)), timeoutMs);
    r.on('error', fail);
    r.end(req.body);
  });
}
