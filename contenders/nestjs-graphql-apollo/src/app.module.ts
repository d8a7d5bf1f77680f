import { Module } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { UsersModule } from '@bakeoff/lib-nestjs-graphql-users';

@Module({
  imports: [
    // Code-first: the schema is generated in memory from the shared User/UsersResolver classes.
    // GraphiQL/landing page off (also Nest's default under NODE_ENV=production); Apollo's own
    // production defaults otherwise (introspection off, CSRF prevention on: a JSON POST passes).
    GraphQLModule.forRoot<ApolloDriverConfig>({
      driver: ApolloDriver,
      path: '/graphql',
      autoSchemaFile: true,
      graphiql: false,
    }),
    UsersModule,
  ],
})
export class AppModule {}
