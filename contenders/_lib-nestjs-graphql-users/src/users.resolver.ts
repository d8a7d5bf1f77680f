import { Args, Int, Query, Resolver } from '@nestjs/graphql';
import { User } from './user.model.js';
import { UsersService } from './users.service.js';

/** `users(limit: Int = 10): [User!]!`, the first users ordered by id; `userById(id: Int!): User`, one row or null. */
@Resolver(() => User)
export class UsersResolver {
  constructor(private readonly usersService: UsersService) {}

  @Query(() => [User])
  users(@Args('limit', { type: () => Int, defaultValue: 10 }) limit: number): Promise<User[]> {
    return this.usersService.first(limit);
  }

  @Query(() => User, { nullable: true })
  userById(@Args('id', { type: () => Int }) id: number): Promise<User | null> {
    return this.usersService.byId(id);
  }
}
