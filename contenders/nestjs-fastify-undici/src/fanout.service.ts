import { Injectable } from '@nestjs/common';
import type { Fanout } from '@bakeoff/lib-nestjs-rest';
import { HttpService } from 'nestjs-undici';
import { lastValueFrom } from 'rxjs';

const UPSTREAM = `${process.env.UPSTREAM_URL ?? 'http://127.0.0.1:3001'}/data`;

/**
 * GET /fanout: 5 parallel calls through nestjs-undici's HttpService.request (an Observable of
 * undici's ResponseData), each body read and parsed with `await res.body.json()`.
 */
@Injectable()
export class FanoutService implements Fanout {
  constructor(private readonly http: HttpService) {}

  private async one(): Promise<unknown> {
    const res = await lastValueFrom(this.http.request(UPSTREAM));
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`upstream answered ${res.statusCode}`);
    }
    return await res.body.json();
  }

  fetchAll(): Promise<unknown[]> {
    return Promise.all([this.one(), this.one(), this.one(), this.one(), this.one()]);
  }
}
