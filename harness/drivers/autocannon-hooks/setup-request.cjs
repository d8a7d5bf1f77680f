// autocannon setupRequest hook (request variants): draws one variant uniformly at random per
// request and remembers its index in the connection's context for on-response.cjs.
'use strict';
const state = require('./state.cjs');

module.exports = function setupRequest(req, context) {
  const variants = state.cfg.variants;
  const i = Math.floor(Math.random() * variants.length);
  context.variant = i;
  const v = variants[i];
  return { ...req, method: v.method, path: v.path, headers: v.headers, body: v.body };
};
