import { Body, Controller, Get, Header, HttpCode, Post, Query } from '@nestjs/common';
import { Fanout } from './fanout.js';
import { USERS, type User } from './users.js';

/**
 * The six REST routes of the contract (scenarios/*.json) on either Nest platform: GET /ping (text),
 * /json, /echo?name=, /users, POST /data (200, not Nest's default 201) and GET /fanout through
 * the contender's {@link Fanout}.
 */
@Controller()
export class AppController {
  constructor(private readonly fanout: Fanout) {}

  @Get('ping')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  ping(): string {
    return 'pong';
  }

  @Get('json')
  json(): { message: string } {
    return { message: 'Hello, World!' };
  }

  @Get('echo')
  echo(@Query('name') name?: string): { echo: string } {
    return { echo: `Hello, ${name ?? ''}!` };
  }

  @Get('users')
  users(): User[] {
    return USERS;
  }

  @Post('data')
  @HttpCode(200)
  data(@Body() body: unknown): { received: unknown; processed: boolean } {
    return { received: body, processed: true };
  }

  @Get('fanout')
  async fanoutAll(): Promise<{ message: string; data: unknown[] }> {
    return { message: 'aggregated', data: await this.fanout.fetchAll() };
  }
}
