import { Module } from '@nestjs/common';
import { AppController, Fanout } from '@bakeoff/lib-nestjs-rest';
import { HttpModule } from 'nestjs-undici';
import { Agent, type Dispatcher } from 'undici';
import { FanoutService } from './fanout.service.js';
import { timingInterceptor } from './timing.interceptor.js';

/** One undici Agent (128 keep-alive connections per origin) for every nestjs-undici request. */
const agent = new Agent({ connections: 128 });
const dispatcher: Dispatcher = process.env.HTTP_INTERCEPTORS === '1' ? agent.compose(timingInterceptor) : agent;

/** The shared REST routes (@bakeoff/lib-nestjs-rest) with the fan-out through nestjs-undici. */
@Module({
  imports: [HttpModule.register({ dispatcher })],
  controllers: [AppController],
  providers: [{ provide: Fanout, useClass: FanoutService }],
})
export class AppModule {}
