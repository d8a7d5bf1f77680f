import { get, param, post, requestBody } from '@loopback/rest';
import { Pool } from 'undici';
import { USERS, type User } from './users.js';

const upstream = new Pool(process.env.UPSTREAM_URL ?? 'http://127.0.0.1:3001', { connections: 128 });

async function fetchUpstream(): Promise<unknown> {
  const { statusCode, body } = await upstream.request({ path: '/data', method: 'GET' });
  if (statusCode !== 200) {
    await body.dump();
    throw new Error(`upstream answered ${statusCode}`);
  }
  return body.json();
}

const json = (description: string) => ({ responses: { '200': { description, content: { 'application/json': { schema: { type: 'object' } } } } } });

/** All six scenarios; the route metadata is LoopBack's OpenAPI decorators. */
export class BenchController {
  @get('/ping', { responses: { '200': { description: 'pong', content: { 'text/plain': { schema: { type: 'string' } } } } } })
  ping(): string {
    return 'pong';
  }

  @get('/json', json('a small object'))
  json(): { message: string } {
    return { message: 'Hello, World!' };
  }

  @get('/echo', json('the greeting'))
  echo(@param.query.string('name') name?: string): { echo: string } {
    return { echo: `Hello, ${name ?? ''}!` };
  }

  @get('/users', json('100 users'))
  users(): User[] {
    return USERS;
  }

  @post('/data', json('the parsed body'))
  data(
    @requestBody({ required: true, content: { 'application/json': { schema: { type: 'object' } } } }) body: object,
  ): { received: object; processed: boolean } {
    return { received: body, processed: true };
  }

  @get('/fanout', json('5 upstream replies'))
  async fanout(): Promise<{ message: string; data: unknown[] }> {
    const data = await Promise.all([fetchUpstream(), fetchUpstream(), fetchUpstream(), fetchUpstream(), fetchUpstream()]);
    return { message: 'aggregated', data };
  }
}
