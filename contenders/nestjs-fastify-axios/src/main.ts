// nestjs-fastify-axios: NestJS on @nestjs/platform-fastify, fan-out through @nestjs/axios
// (HttpService.get + firstValueFrom). Contract: scenarios/*.json. The routes, the logger and the
// axios fan-out come from @bakeoff/lib-nestjs-rest (contenders/_lib-nestjs-rest), shared with
// nestjs-express-axios: this file is the only difference (the platform). HTTP_INTERCEPTORS=1
// turns on the axios timing interceptors (the lib's axios/fanout.service.ts) and the HttpTiming
// log lines.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppLogger } from '@bakeoff/lib-nestjs-rest';
import { AxiosAppModule } from '@bakeoff/lib-nestjs-rest/axios';

const HOST = process.env.HOST ?? '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const app = await NestFactory.create<NestFastifyApplication>(AxiosAppModule, new FastifyAdapter({ logger: false }), {
  logger: new AppLogger(process.env.HTTP_INTERCEPTORS === '1'),
});
await app.listen(PORT, HOST);
