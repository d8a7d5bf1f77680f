/**
 * One HTTP request (a fresh connection by default, or a caller's keep-alive agent), for readiness
 * polls, the verifier, the concurrency burst and the services: the lowest layer every other
 * module may use. Times in ms.
 */
import http from 'node:http';

/**
 * The most bytes of one response the harness keeps (16 MiB): far above any scenario's body (the
 * largest, GraphQL introspection, is well under 1 MiB), so a server that sends without end fails
 * with the figure instead of filling the harness's memory.
 */
export const MAX_RESPONSE_BYTES = 16 * 2 ** 20;

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
 * `timeoutMs`) of the head, whichever is sooner. A body over `maxBytes` (default
 * MAX_RESPONSE_BYTES) is cut too. Rejects with an Error saying which deadline or cap passed ("no
 * response within 5000 ms"; "the body did not end within 1000 ms of the response head (status
 * 200, body still open)"; "the body passed 16 MiB …") or on a socket error (with its code, e.g.
 * HPE_INVALID_CONSTANT); the connection is destroyed.
 */
export function fetchOnce(
  baseUrl: string,
  req: { method: string; path: string; headers?: Record<string, string>; body?: string },
  timeoutMs = 5000,
  agent: http.Agent | false = false,
  bodyTimeoutMs = timeoutMs,
  maxBytes = MAX_RESPONSE_BYTES,
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
        if (bytes > maxBytes && !late) {
          chunks.length = 0; // nothing of it is kept
          cut(
            new Error(
              `the body passed ${Math.round(maxBytes / 2 ** 20)} MiB (${bytes} bytes so far, status ${res.statusCode}): the harness caps a response at that size`,
            ),
          );
        }
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

/**
 * True for an error that says the peer speaks something the harness's HTTP/1.1 client cannot
 * read, rather than "not listening yet": an llhttp parse error (`HPE_*`: a Content-Length shorter
 * than the body, an HTTP/2 (h2c) preface or frame, a TLS record), a reset or hang-up on an open
 * connection (an HTTPS-only port), a protocol error (EPROTO).
 */
export function isProtocolError(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | null)?.code ?? '';
  return code.startsWith('HPE_') || code === 'ECONNRESET' || code === 'EPROTO';
}

/** An error as one clause: its message and, when it has one, its code ("Parse Error: Expected HTTP/ (HPE_INVALID_CONSTANT)"). */
export function describeError(e: unknown): string {
  const err = e as NodeJS.ErrnoException | null;
  const msg = err?.message ?? String(e);
  return err?.code && !msg.includes(err.code) ? `${msg} (${err.code})` : msg;
}
