import { Module } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import { MercuriusDriver, type MercuriusDriverConfig } from '@nestjs/mercurius';
import { UsersModule } from '@bakeoff/lib-nestjs-graphql-users';

@Module({
  imports: [
    // Code-first: the schema is generated in memory from the shared User/UsersResolver classes.
    // GraphiQL off (Mercurius's default); Mercurius's defaults otherwise (no JIT, query cache on).
    GraphQLModule.forRoot<MercuriusDriverConfig>({
      driver: MercuriusDriver,
      path: '/graphql',
      autoSchemaFile: true,
      graphiql: false,
    }),
    UsersModule,
  ],
})
export class AppModule {}
