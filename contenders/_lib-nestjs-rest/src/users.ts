/** The 100 users of GET /users, built once at start-up. */
export interface User { id: number; name: string; email: string; active: boolean }

export const USERS: User[] = Array.from({ length: 100 }, (_, i) => ({
  id: i + 1,
  name: `User ${i + 1}`,
  email: `user${i + 1}@example.com`,
  active: i % 2 === 0,
}));
