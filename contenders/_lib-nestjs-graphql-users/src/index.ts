// @bakeoff/lib-nestjs-graphql-users: the code-first GraphQL schema (User, users query), its pg
// service and GET /ping, shared by nestjs-graphql-apollo and nestjs-graphql-mercurius so the
// only difference between them is the GraphQL driver and the HTTP platform.
import { Module } from '@nestjs/common';
import { PingController } from './ping.controller.js';
import { UsersResolver } from './users.resolver.js';
import { UsersService } from './users.service.js';

export { User } from './user.model.js';
export { UsersResolver } from './users.resolver.js';
export { MAX_LIMIT, UsersService } from './users.service.js';
export { PingController } from './ping.controller.js';

/** GET /ping plus the `users` query; import it next to GraphQLModule.forRoot(<driver>). */
@Module({
  controllers: [PingController],
  providers: [UsersService, UsersResolver],
})
export class UsersModule {}
