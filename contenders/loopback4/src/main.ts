// loopback4: a minimal LoopBack 4 RestApplication (no boot, no explorer, no OpenAPI endpoint)
// with one controller for the six scenarios; /fanout through an undici Pool.
// Contract: scenarios/*.json.
import { RestApplication, RestBindings } from '@loopback/rest';
import { BenchController } from './bench.controller.js';
import { sendWithCharset } from './send.js';

async function main(): Promise<void> {
  const app = new RestApplication({
    rest: {
      host: process.env.HOST ?? '127.0.0.1',
      port: Number(process.env.PORT ?? 3000),
      openApiSpec: { disabled: true },
      apiExplorer: { disabled: true },
    },
  });
  app.bind(RestBindings.SequenceActions.SEND).to(sendWithCharset);
  app.controller(BenchController);
  await app.start();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
