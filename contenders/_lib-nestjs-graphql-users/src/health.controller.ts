import { Controller, Get, HttpCode, ServiceUnavailableException } from '@nestjs/common';
import { UsersService } from './users.service.js';

/**
 * GET /health: the health-db scenario. `SELECT 1` on the same pg pool as the resolvers, within
 * HEALTH_TIMEOUT_MS: 200 `{"status":"ok","database":"up"}`, or 503 `{"status":"error","database":"down"}`
 * when PostgreSQL is gone or does not answer in time.
 */
@Controller()
export class HealthController {
  constructor(private readonly usersService: UsersService) {}

  @Get('health')
  @HttpCode(200)
  async health(): Promise<{ status: 'ok'; database: 'up' }> {
    if (await this.usersService.alive()) return { status: 'ok', database: 'up' };
    throw new ServiceUnavailableException({ status: 'error', database: 'down' });
  }
}
