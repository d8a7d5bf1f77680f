import { Module } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { UsersModule } from '@bakeoff/lib-nestjs-graphql-users';

@Module({
  imports: [
    // Code-first: the schema is generated in memory from the shared User/UsersResolver classes.
    // GraphiQL/landing page off (also Nest's default under NODE_ENV=production); Apollo's own
    // production defaults otherwise (CSRF prevention on: a JSON POST passes) except
    // introspection, which Apollo turns off under NODE_ENV=production: the graphql-introspection
    // scenario (the PostGraphile template's introspection test) needs it on, as Mercurius and
    // PostGraphile have it.
    GraphQLModule.forRoot<ApolloDriverConfig>({
      driver: ApolloDriver,
      path: '/graphql',
      autoSchemaFile: true,
      graphiql: false,
      introspection: true,
    }),
    UsersModule,
  ],
})
export class AppModule {}
