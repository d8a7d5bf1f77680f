import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpService } from '@nestjs/axios';
import { firstValueFrom } from 'rxjs';
import type { InternalAxiosRequestConfig } from 'axios';
import { Fanout } from '../fanout.js';
import { TIMING_CONTEXT } from '../logger.js';

const UPSTREAM = `${process.env.UPSTREAM_URL ?? 'http://127.0.0.1:3001'}/data`;
const INTERCEPTORS = process.env.HTTP_INTERCEPTORS === '1';

type TimedConfig = InternalAxiosRequestConfig & { startedAt?: number };

function describe(config: TimedConfig): string {
  return `${(config.method ?? 'get').toUpperCase()} ${new URL(config.url ?? '', config.baseURL).pathname}`;
}

/** GET /fanout: 5 parallel GETs through @nestjs/axios (HttpService.get + firstValueFrom), each reply body parsed by axios. */
@Injectable()
export class AxiosFanoutService implements Fanout, OnModuleInit {
  constructor(private readonly http: HttpService) {}

  /** The `interceptor` variant: axios request/response interceptors timing every outbound call. */
  onModuleInit(): void {
    if (!INTERCEPTORS) return;
    const { interceptors } = this.http.axiosRef;
    interceptors.request.use((config: TimedConfig) => {
      config.startedAt = performance.now();
      return config;
    });
    interceptors.response.use(
      (res) => {
        const config = res.config as TimedConfig;
        Logger.log(`${describe(config)} ${res.status} in ${(performance.now() - config.startedAt!).toFixed(2)} ms`, TIMING_CONTEXT);
        return res;
      },
      (err) => {
        const config = err?.config as TimedConfig | undefined;
        if (config?.startedAt !== undefined) {
          Logger.warn(`${describe(config)} failed (${err.response?.status ?? err.code ?? err.message}) in ${(performance.now() - config.startedAt).toFixed(2)} ms`, TIMING_CONTEXT);
        }
        return Promise.reject(err);
      },
    );
  }

  private async one(): Promise<unknown> {
    const res = await firstValueFrom(this.http.get(UPSTREAM));
    return res.data;
  }

  fetchAll(): Promise<unknown[]> {
    return Promise.all([this.one(), this.one(), this.one(), this.one(), this.one()]);
  }
}
