// @bakeoff/lib-nestjs-rest: the NestJS code shared by the REST contenders nestjs-express-axios,
// nestjs-fastify-axios and nestjs-fastify-undici, so they differ only in the Nest platform
// (their main.ts) and the fan-out HTTP client (the `Fanout` provider of their module).
// The axios fan-out shared by the two axios contenders is the `./axios` entry point.
export { AppController } from './app.controller.js';
export { Fanout } from './fanout.js';
export { AppLogger, TIMING_CONTEXT } from './logger.js';
export { USERS, type User } from './users.js';
