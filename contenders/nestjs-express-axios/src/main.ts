// nestjs-express-axios: NestJS on @nestjs/platform-express, fan-out through @nestjs/axios
// (HttpService.get + firstValueFrom). Contract: scenarios/*.json. HTTP_INTERCEPTORS=1 turns on
// the axios timing interceptors (see fanout.service.ts) and the HttpTiming log lines.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';
import { AppLogger } from './logger.js';

const HOST = process.env.HOST ?? '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const app = await NestFactory.create<NestExpressApplication>(AppModule, {
  logger: new AppLogger(process.env.HTTP_INTERCEPTORS === '1'),
});
await app.listen(PORT, HOST);
