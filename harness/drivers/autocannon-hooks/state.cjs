// Shared state of autocannon's request hooks (setup-request.cjs, on-response.cjs), loaded once per
// thread: in the worker process itself (one thread) or in each of autocannon's worker threads
// (`workers` > 1, where hooks must be files). Config: the JSON file named by BENCH_AC_HOOKS,
// { variants: ConcreteRequest[] | null, pipelining: number, sampleEvery: number, samplesDir: string,
// maxSamples: number }.
// Every sampleEvery-th response of the thread is kept (status, the four headers the contract
// checks, body, and the index of the variant the connection sent); a worker thread writes its
// samples to samplesDir/samples-<threadId>.json when it exits; the main thread's are read in place.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { threadId, isMainThread } = require('node:worker_threads');

const cfg = JSON.parse(fs.readFileSync(process.env.BENCH_AC_HOOKS, 'utf8'));
const state = { cfg, seen: 0, samples: [] };

if (!isMainThread)
  process.on('exit', () => {
    fs.writeFileSync(path.join(cfg.samplesDir, `samples-${threadId}.json`), JSON.stringify(state.samples));
  });

module.exports = state;
