// autocannon onResponse hook: keeps every sampleEvery-th response of this thread (see state.cjs).
// The variant a response answered is known only without pipelining: autocannon gives the hook the
// context of the connection's latest request (with one request in its list it even starts a fresh
// context per request), so with pipelining > 1 the latest request is not the one answered (in run
// one run (docs/measurements.md) every graphql-node body was checked against another user's id).
// Pipelined samples carry no variant, and the checker accepts an answer to any of the variants
// (drivers/checks.ts checkSamples).
'use strict';
const state = require('./state.cjs');

function header(headers, name) {
  for (const k of Object.keys(headers || {})) if (k.toLowerCase() === name) return String(headers[k]);
  return null;
}

module.exports = function onResponse(status, body, context, headers) {
  if (state.seen++ % state.cfg.sampleEvery !== 0 || state.samples.length >= state.cfg.maxSamples) return;
  state.samples.push({
    variant:
      state.cfg.pipelining > 1 ? undefined : context && typeof context.variant === 'number' ? context.variant : 0,
    status,
    contentType: header(headers, 'content-type'),
    contentLength: header(headers, 'content-length'),
    transferEncoding: header(headers, 'transfer-encoding'),
    body: body ?? '',
  });
};
