// nestjs-fastify-undici: NestJS on @nestjs/platform-fastify, fan-out through nestjs-undici
// (HttpService.request + lastValueFrom + res.body.json()). Contract: scenarios/*.json. The routes
// and the logger come from @bakeoff/lib-nestjs-rest (contenders/_lib-nestjs-rest).
// HTTP_INTERCEPTORS=1 turns on the undici dispatcher interceptor (see timing.interceptor.ts)
// and the HttpTiming log lines.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module.js';
import { AppLogger } from '@bakeoff/lib-nestjs-rest';

const HOST = process.env.HOST ?? '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const app = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter({ logger: false }), {
  logger: new AppLogger(process.env.HTTP_INTERCEPTORS === '1'),
});
await app.listen(PORT, HOST);
