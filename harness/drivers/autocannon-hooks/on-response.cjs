// autocannon onResponse hook: keeps every sampleEvery-th response of this thread (see state.cjs).
'use strict';
const state = require('./state.cjs');

function header(headers, name) {
  for (const k of Object.keys(headers || {})) if (k.toLowerCase() === name) return String(headers[k]);
  return null;
}

module.exports = function onResponse(status, body, context, headers) {
  if (state.seen++ % state.cfg.sampleEvery !== 0 || state.samples.length >= state.cfg.maxSamples) return;
  state.samples.push({
    variant: context && typeof context.variant === 'number' ? context.variant : 0,
    status,
    contentType: header(headers, 'content-type'),
    contentLength: header(headers, 'content-length'),
    transferEncoding: header(headers, 'transfer-encoding'),
    body: body ?? '',
  });
};
