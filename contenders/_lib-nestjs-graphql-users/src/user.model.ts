import { Field, Int, ObjectType } from '@nestjs/graphql';

/** A row of the seeded `users` table, as GraphQL type `User { id: Int!, name: String!, email: String! }`. */
@ObjectType()
export class User {
  @Field(() => Int)
  id: number;

  @Field(() => String)
  name: string;

  @Field(() => String)
  email: string;
}
