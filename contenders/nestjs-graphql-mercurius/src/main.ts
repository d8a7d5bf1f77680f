// nestjs-graphql-mercurius: NestJS 12 on Fastify 5 (@nestjs/platform-fastify) with
// @nestjs/graphql code-first and the Mercurius driver. The schema, resolver, pg service and
// /ping come from @bakeoff/lib-nestjs-graphql-users. Contract: scenarios/*.json. Needs DATABASE_URL.
import 'reflect-metadata';
import { ConsoleLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module.js';

const HOST = process.env.HOST ?? '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const app = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter({ logger: false }), {
  logger: new ConsoleLogger({ logLevels: ['error'], colors: false }),
});
await app.listen(PORT, HOST);
