// nestjs-graphql-apollo: NestJS 12 on Express (@nestjs/platform-express) with @nestjs/graphql
// code-first and the Apollo driver (Apollo Server 5 via @as-integrations/express5). The schema,
// resolver, pg service and /ping come from @bakeoff/lib-nestjs-graphql-users. Contract:
// scenarios/*.json. Needs DATABASE_URL.
import 'reflect-metadata';
import { ConsoleLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';

const HOST = process.env.HOST ?? '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const app = await NestFactory.create<NestExpressApplication>(AppModule, {
  logger: new ConsoleLogger({ logLevels: ['error'], colors: false }),
});
app.disable('x-powered-by');
await app.listen(PORT, HOST);
