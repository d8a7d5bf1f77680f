import { writeResultToResponse, type OperationRetval, type Response } from '@loopback/rest';

/**
 * The `send` sequence action (bound to RestBindings.SequenceActions.SEND). LoopBack's own writer
 * answers `application/json` and `text/plain` without a charset; the contract asks for
 * `; charset=utf-8`, so JSON values and strings are written here with it, and everything else
 * (undefined, buffers, streams, a returned Response) goes to LoopBack's writeResultToResponse.
 */
export function sendWithCharset(response: Response, result: OperationRetval): void {
  if (result === response || response.headersSent) return;
  if (typeof result === 'string') {
    response.setHeader('Content-Type', 'text/plain; charset=utf-8');
    response.end(result);
    return;
  }
  if (result !== undefined && !Buffer.isBuffer(result) && typeof result?.pipe !== 'function') {
    const body = JSON.stringify(result);
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.end(body);
    return;
  }
  writeResultToResponse(response, result);
}
