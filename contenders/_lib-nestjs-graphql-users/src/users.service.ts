import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import type { User } from './user.model.js';

/** The most rows one `users` query returns. */
export const MAX_LIMIT = 100;

/** Reads `users` through one node-postgres Pool (DATABASE_URL, pg's default of 10 connections). */
@Injectable()
export class UsersService implements OnApplicationShutdown {
  private readonly pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });

  constructor() {
    // An idle client losing its connection must not end the process (pg emits 'error' on the pool).
    this.pool.on('error', (e) => Logger.error(`pg pool: ${e.message}`, 'UsersService'));
  }

  /** The first `limit` users ordered by id (limit clamped to 0..MAX_LIMIT). */
  async first(limit: number): Promise<User[]> {
    const n = Math.min(Math.max(Math.trunc(limit), 0), MAX_LIMIT);
    const { rows } = await this.pool.query<User>('SELECT id, name, email FROM users ORDER BY id LIMIT $1', [n]);
    return rows;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
