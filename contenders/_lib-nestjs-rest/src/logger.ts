import { ConsoleLogger, type LogLevel } from '@nestjs/common';

/** Context of the outbound-call timing lines written by the `interceptor` variant. */
export const TIMING_CONTEXT = 'HttpTiming';

/**
 * Nest's ConsoleLogger without colours, for production: errors only by default. With
 * HTTP_INTERCEPTORS=1 (the `interceptor` variant) also warnings and 'log' lines, but 'log' lines
 * only from the HttpTiming context, so Nest's own start-up lines stay off. No request logging.
 */
export class AppLogger extends ConsoleLogger {
  constructor(private readonly timing: boolean) {
    const logLevels: LogLevel[] = timing ? ['error', 'warn', 'log'] : ['error'];
    super({ logLevels, colors: false });
  }

  override log(message: unknown, ...optionalParams: unknown[]): void {
    if (this.timing && optionalParams[optionalParams.length - 1] === TIMING_CONTEXT) super.log(message, ...optionalParams);
  }
}
