import { Logger } from '@nestjs/common';
import type { Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { TIMING_CONTEXT } from '@bakeoff/lib-nestjs-rest';

type Controller = Dispatcher.DispatchController;

/** Wraps undici's own handler of one request, forwarding every callback, and times it. */
class TimingHandler implements Dispatcher.DispatchHandler {
  private status = 0;

  constructor(
    private readonly inner: Dispatcher.DispatchHandler,
    private readonly label: string,
    private readonly startedAt: number,
  ) {}

  onRequestStart(controller: Controller, context: unknown): void {
    this.inner.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(controller: Controller, statusCode: number, headers: IncomingHttpHeaders, socket: Duplex): void {
    this.inner.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(controller: Controller, statusCode: number, headers: IncomingHttpHeaders, statusMessage?: string): void {
    this.status = statusCode;
    return this.inner.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    return this.inner.onResponseData?.(controller, chunk);
  }

  /** The whole response has arrived: log its timing, then let undici finish the body. */
  onResponseEnd(controller: Controller, trailers: IncomingHttpHeaders): void {
    Logger.log(`${this.label} ${this.status} in ${(performance.now() - this.startedAt).toFixed(2)} ms`, TIMING_CONTEXT);
    this.inner.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Controller, error: Error): void {
    Logger.warn(`${this.label} failed (${error.message}) in ${(performance.now() - this.startedAt).toFixed(2)} ms`, TIMING_CONTEXT);
    this.inner.onResponseError?.(controller, error);
  }

  onResponseStarted(): void {
    this.inner.onResponseStarted?.();
  }

  onBodySent(chunk: Buffer): void {
    this.inner.onBodySent?.(chunk);
  }

  onRequestSent(): void {
    this.inner.onRequestSent?.();
  }
}

/**
 * undici dispatcher interceptor (for `agent.compose(...)`) of the `interceptor` variant: records
 * when each outbound request is dispatched and logs `GET /data 200 in 0.42 ms` through Nest's
 * Logger (context HttpTiming) when its response completes.
 */
export const timingInterceptor: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) =>
  dispatch(opts, new TimingHandler(handler, `${opts.method} ${opts.path}`, performance.now()));
