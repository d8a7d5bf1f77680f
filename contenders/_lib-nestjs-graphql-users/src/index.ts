// @bakeoff/lib-nestjs-graphql-users: the code-first GraphQL schema (User; users and userById
// queries), its pg service, GET /ping and GET /health (SELECT 1 on the same pool), shared by
// nestjs-graphql-apollo and nestjs-graphql-mercurius so the only difference between them is the
// GraphQL driver and the HTTP platform.
import { Module } from '@nestjs/common';
import { HealthController } from './health.controller.js';
import { PingController } from './ping.controller.js';
import { UsersResolver } from './users.resolver.js';
import { UsersService } from './users.service.js';

export { User } from './user.model.js';
export { UsersResolver } from './users.resolver.js';
export { HEALTH_TIMEOUT_MS, MAX_LIMIT, POOL_WAIT_MS, UsersService } from './users.service.js';
export { PingController } from './ping.controller.js';
export { HealthController } from './health.controller.js';

/** GET /ping, GET /health plus the `users` and `userById` queries; import it next to GraphQLModule.forRoot(<driver>). */
@Module({
  controllers: [PingController, HealthController],
  providers: [UsersService, UsersResolver],
})
export class UsersModule {}
