#!/bin/sh
# Starts the contender of this image the way the harness starts it (harness/lifecycle/server.ts):
# the manifest's `start` argv in the contender's folder, a leading "node" replaced by this
# image's node, plus the manifest's `env`. Differences from the harness, on purpose:
#   - variables the container already has (compose `environment:`) win over the manifest's `env`;
#   - BENCH_VARIANT=<name> applies that variant's `env` (e.g. BENCH_VARIANT=interceptor).
# The server is exec'ed, so it gets SIGTERM from `docker compose stop` (with `init: true`).
set -eu
# CONTENDERS_DIR is for tests outside the image.
cd "${CONTENDERS_DIR:-/app/contenders}/${CONTENDER:?CONTENDER is not set: build the image with --build-arg CONTENDER=<folder>}"

# node prints shell code (single-quoted words); the assignment fails this script if node fails.
start_code="$(node - <<'JS'
const fs = require('node:fs');
const m = JSON.parse(fs.readFileSync('contender.json', 'utf8'));
const q = (s) => "'" + String(s).replace(/'/g, "'\\''") + "'";
const fail = (msg) => { console.error(`contender-entrypoint: ${msg}`); process.exit(2); };
if (!Array.isArray(m.start) || m.start.length === 0) fail(`${m.name}: contender.json has no start command`);
const env = { ...(m.env ?? {}) };
const variant = process.env.BENCH_VARIANT ?? '';
if (variant) {
  const v = (m.variants ?? {})[variant];
  if (!v) fail(`unknown variant '${variant}' of ${m.name}; known: ${Object.keys(m.variants ?? {}).join(', ') || 'none'}`);
  Object.assign(env, v.env);
}
const lines = [];
for (const [k, v] of Object.entries(env)) {
  if (!/^[A-Z_][A-Z0-9_]*$/.test(k)) fail(`bad environment variable name '${k}' in contender.json`);
  if (process.env[k] === undefined) lines.push(`export ${k}=${q(v)}`);
}
const argv = m.start.map((a, i) => (i === 0 && a === 'node' ? process.execPath : a));
lines.push(`exec ${argv.map(q).join(' ')}`);
process.stdout.write(lines.join('\n') + '\n');
JS
)"
eval "$start_code"
