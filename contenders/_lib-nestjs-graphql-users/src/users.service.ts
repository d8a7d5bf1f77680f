import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import type { User } from './user.model.js';

/** The most rows one `users` query returns. */
export const MAX_LIMIT = 100;

/** How long a query may wait for a pool connection (a new connection or a free one), ms. */
export const POOL_WAIT_MS = 5000;

/** How long GET /health waits for `SELECT 1` (pool wait, connect and query together), ms. */
export const HEALTH_TIMEOUT_MS = 2000;

/**
 * Reads `users` through one node-postgres Pool (DATABASE_URL, pg's default of 10 connections;
 * a POOL_WAIT_MS connect/queue timeout so a lost database gives errors, not hung requests).
 */
@Injectable()
export class UsersService implements OnApplicationShutdown {
  private readonly pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    connectionTimeoutMillis: POOL_WAIT_MS,
  });

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

  /** The user with this id, or null when there is none. */
  async byId(id: number): Promise<User | null> {
    const { rows } = await this.pool.query<User>('SELECT id, name, email FROM users WHERE id = $1', [id]);
    return rows[0] ?? null;
  }

  /** True when `SELECT 1` answers within HEALTH_TIMEOUT_MS on this pool; false on any error or timeout. */
  async alive(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const query = this.pool
      .query<{ ok: number }>({ text: 'SELECT 1 AS ok', query_timeout: HEALTH_TIMEOUT_MS } as pg.QueryConfig)
      .then(
        (r) => r.rows[0]?.ok === 1,
        () => false,
      );
    const deadline = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS);
    });
    const up = await Promise.race([query, deadline]);
    clearTimeout(timer);
    return up;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
