// @bakeoff/lib-nestjs-rest/axios: the application module of the two axios contenders
// (nestjs-express-axios, nestjs-fastify-axios), which differ only in the Nest platform their
// main.ts creates. Imported only by them, so nestjs-fastify-undici never loads axios.
import { HttpModule } from '@nestjs/axios';
import { Module } from '@nestjs/common';
import { AppController } from '../app.controller.js';
import { Fanout } from '../fanout.js';
import { AxiosFanoutService } from './fanout.service.js';

export { AxiosFanoutService } from './fanout.service.js';

/** The REST routes with the fan-out through @nestjs/axios (`HttpModule.register({})`, axios defaults). */
@Module({
  imports: [HttpModule.register({})],
  controllers: [AppController],
  providers: [{ provide: Fanout, useClass: AxiosFanoutService }],
})
export class AxiosAppModule {}
