/**
 * The fan-out client of GET /fanout, as the controller sees it. Each contender provides its own
 * implementation under this token: `{ provide: Fanout, useClass: FanoutService }`.
 */
export abstract class Fanout {
  /** The 5 parallel upstream calls' parsed JSON bodies, in call order. */
  abstract fetchAll(): Promise<unknown[]>;
}
