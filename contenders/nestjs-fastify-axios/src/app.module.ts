import { Module } from '@nestjs/common';
import { HttpModule } from '@nestjs/axios';
import { AppController } from './app.controller.js';
import { FanoutService } from './fanout.service.js';

@Module({
  imports: [HttpModule.register({})],
  controllers: [AppController],
  providers: [FanoutService],
})
export class AppModule {}
