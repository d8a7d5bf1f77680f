import { Module } from '@nestjs/common';
import { HttpModule } from 'nestjs-undici';
import { Agent, type Dispatcher } from 'undici';
import { AppController } from './app.controller.js';
import { FanoutService } from './fanout.service.js';
import { timingInterceptor } from './timing.interceptor.js';

/** One undici Agent (128 keep-alive connections per origin) for every nestjs-undici request. */
const agent = new Agent({ connections: 128 });
const dispatcher: Dispatcher = process.env.HTTP_INTERCEPTORS === '1' ? agent.compose(timingInterceptor) : agent;

@Module({
  imports: [HttpModule.register({ dispatcher })],
  controllers: [AppController],
  providers: [FanoutService],
})
export class AppModule {}
