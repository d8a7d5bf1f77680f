import { Controller, Get, Header } from '@nestjs/common';

/** GET /ping: the harness's readiness probe and the `ping` scenario. */
@Controller()
export class PingController {
  @Get('ping')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  ping(): string {
    return 'pong';
  }
}
