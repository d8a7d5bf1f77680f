/**
 * Contender manifests: `contenders/<name>/contender.json`, validated with zod.
 *
 * A bad manifest gives a UserError naming the file, the field and what was expected. A folder
 * whose name starts with `_` (the template) is not a contender.
 *
 * The harness owns HOST, PORT, UPSTREAM_URL, DATABASE_URL, NODE_ENV and NODE_OPTIONS (RESERVED_ENV):
 * they keep every server on loopback, on the port the harness chose, talking to the harness's own
 * upstream mock and database, on the pinned Node with the harness's flags only (NODE_OPTIONS could
 * preload code or change the runtime's flags unseen). A manifest `env` or variant `env` that sets one is a manifest error naming
 * the field (`"env": {"HOST": "0.0.0.0"}` once made a server listen on every interface).
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { UserError } from './errors.ts';
import { formatZodError } from './zod-format.ts';

/** A valid contender name (and so folder name): lower-case letters, digits and dashes, not starting with a dash. */
export const CONTENDER_NAME = /^[a-z0-9][a-z0-9-]*$/;

/** The nearest valid contender name to `folder` ("My Stack" → "my-stack"); '' when nothing is left. */
export function suggestName(folder: string): string {
  return folder
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/-{2,}/g, '-');
}

const Env = z.record(
  z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'environment variable names are UPPER_SNAKE_CASE'),
  z.string(),
);

export const ManifestSchema = z.strictObject({
  $schema: z.string().optional(),
  /** Must equal the folder name. */
  name: z.string().regex(CONTENDER_NAME, 'lower-case letters, digits and dashes'),
  displayName: z.string().min(1),
  description: z.string().optional(),
  tags: z
    .object({
      framework: z.string().min(1),
      adapter: z.string().min(1).optional(),
      /** The HTTP client used for the fan-out scenario, e.g. `undici Pool`. */
      httpClient: z.string().min(1),
      /** The language the contender's own code is written in (javascript, typescript, …). */
      language: z.string().regex(/^[a-z][a-z0-9+#-]*$/, 'a lower-case language name such as javascript or typescript'),
    })
    .catchall(z.string()),
  /** Scenario names this contender implements; only these are measured and ranked. */
  scenarios: z.array(z.string()).min(1),
  /** Shell command run in the contender folder before any timing (e.g. `npx tsc -p .`), or null. */
  build: z.string().min(1).nullable().default(null),
  /** argv of the server; a leading `node` is replaced by the pinned Node binary. */
  start: z.array(z.string().min(1)).min(1),
  /** Extra environment for the server. */
  env: Env.default({}),
  /** Named environment overrides, each its own leaderboard row (`<name> +<variant>`). */
  variants: z
    .record(
      z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
      z.strictObject({
        description: z.string().min(1),
        env: Env,
      }),
    )
    .default({}),
  /** Services the contender needs to start: `database` = PostgreSQL with the seeded `users` table (DATABASE_URL). */
  requires: z.array(z.enum(['database'])).default([]),
  /**
   * GraphQL dialect: graphql-users' query text and the dot path of the rows in the reply;
   * graphql-node's one-user query (a `$id: Int!` variable) and the dot path of the row.
   */
  graphql: z
    .strictObject({
      usersQuery: z.string().min(1),
      usersPath: z.string().regex(/^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$/, 'a dot path such as data.allUsers.nodes'),
      userByIdQuery: z.string().min(1).optional(),
      userByIdPath: z
        .string()
        .regex(/^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$/, 'a dot path such as data.userById')
        .optional(),
    })
    .optional(),
  /** The contender's own path for a contract path, e.g. Hasura's `{"/graphql": "/v1/graphql"}`. */
  paths: z.record(z.string().startsWith('/'), z.string().startsWith('/')).default({}),
  /** Runs only under Docker Compose (e.g. Hasura): benched with `--url` against the compose stack. */
  composeOnly: z.boolean().default(false),
  /** How long the server may take to answer `GET /ping` after start, in ms. */
  readyTimeoutMs: z.number().int().positive().max(300_000).default(30_000),
});

/** Environment variables only the harness sets (see the module comment). */
export const RESERVED_ENV = ['HOST', 'PORT', 'UPSTREAM_URL', 'DATABASE_URL', 'NODE_ENV', 'NODE_OPTIONS'] as const;

/** "env.HOST", "variants.interceptor.env.PORT": every reserved variable a manifest sets. */
export function reservedEnvFields(m: {
  env?: Record<string, string>;
  variants?: Record<string, { env: Record<string, string> }>;
}): string[] {
  const hits = (env: Record<string, string> | undefined, at: string) =>
    Object.keys(env ?? {})
      .filter((k) => (RESERVED_ENV as readonly string[]).includes(k))
      .map((k) => `${at}.${k}`);
  return [
    ...hits(m.env, 'env'),
    ...Object.entries(m.variants ?? {}).flatMap(([v, spec]) => hits(spec.env, `variants.${v}.env`)),
  ];
}

/** A validated manifest plus the folder it came from. */
export type Manifest = z.infer<typeof ManifestSchema> & { dir: string };

/** The manifest file name inside each contender folder. */
export const MANIFEST_FILE = 'contender.json';

/**
 * Reads and validates one manifest. `knownScenarios` are the scenario names of the contract;
 * a manifest naming another one is an error; the folder's package.json must be a JSON object.
 * Throws UserError naming the file.
 */
export function loadManifest(dir: string, knownScenarios: string[]): Manifest {
  const file = path.join(dir, MANIFEST_FILE);
  if (!fs.existsSync(file))
    throw new UserError(
      `${file}: missing. Every contender folder needs a ${MANIFEST_FILE} (copy contenders/_template).`,
    );
  let raw: unknown;
  try {
    // A byte-order mark (some Windows editors write one) is not an error: strip it.
    raw = JSON.parse(fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new UserError(`${file}: not valid JSON (${(e as Error).message})`);
  }
  const parsed = ManifestSchema.safeParse(raw);
  if (!parsed.success) throw new UserError(`${file}: bad manifest\n${formatZodError(parsed.error)}`);
  const m = parsed.data;
  const folder = path.basename(dir);
  if (!CONTENDER_NAME.test(folder)) {
    const better = suggestName(folder) || 'my-stack';
    throw new UserError(
      `${file}: bad folder name '${folder}': a contender's folder and name use lower-case letters, digits and dashes only. Rename the folder to '${better}' and set "name": "${better}".`,
    );
  }
  if (m.name !== folder)
    throw new UserError(`${file}: bad manifest\n  - name: is '${m.name}', expected the folder name '${folder}'`);
  const reserved = reservedEnvFields(m);
  if (reserved.length)
    throw new UserError(
      `${file}: bad manifest\n${reserved.map((f) => `  - ${f}: reserved; the harness sets ${f.split('.').pop()} itself (${RESERVED_ENV.join(', ')} keep every server on loopback, on the harness's port, upstream and database, and on the pinned Node with the harness's flags). Remove it from the manifest.`).join('\n')}`,
    );
  const unknown = m.scenarios.filter((s) => !knownScenarios.includes(s));
  if (m.scenarios.includes('graphql-users') && !m.graphql)
    throw new UserError(
      `${file}: bad manifest\n  - graphql: required when scenarios include graphql-users ({ usersQuery, usersPath })`,
    );
  if (unknown.length)
    throw new UserError(
      `${file}: bad manifest\n  - scenarios: unknown scenario(s) ${unknown.join(', ')}; expected some of ${knownScenarios.join(', ')}`,
    );
  checkPackageJson(dir);
  return { ...m, dir };
}

/**
 * UserError naming `<dir>/package.json` when it is missing, not a file or not a JSON object: every
 * contender is an npm workspace (its dependencies, its `engines`, which the harness checks against
 * the Node version of each cell).
 */
function checkPackageJson(dir: string): void {
  const file = path.join(dir, 'package.json');
  const fix = `Every contender folder needs a package.json (an npm workspace: copy contenders/_template/package.json, then run \`npm install\` at the repository root).`;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`${file}: ${code === 'ENOENT' ? 'missing' : `cannot be read (${code})`}. ${fix}`);
  }
  let pkg: unknown;
  try {
    pkg = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new UserError(`${file}: not valid JSON (${(e as Error).message}). ${fix}`);
  }
  if (!pkg || typeof pkg !== 'object' || Array.isArray(pkg)) throw new UserError(`${file}: not a JSON object. ${fix}`);
}

/** Loads every contender under `contendersDir` (folders not starting with `_` or `.`), sorted by name; the first bad one throws its UserError. */
export function loadManifests(contendersDir: string, knownScenarios: string[]): Manifest[] {
  const { manifests, errors } = loadManifestsLenient(contendersDir, knownScenarios);
  if (errors[0]) throw errors[0];
  return manifests;
}

/**
 * Like loadManifests, but a bad contender folder does not hide the good ones: the valid manifests
 * and one UserError per bad folder (`list` shows both). UserError when the folder is missing.
 */
export function loadManifestsLenient(
  contendersDir: string,
  knownScenarios: string[],
): { manifests: Manifest[]; errors: UserError[] } {
  if (!fs.existsSync(contendersDir)) throw new UserError(`contenders folder ${contendersDir} does not exist`);
  const manifests: Manifest[] = [];
  const errors: UserError[] = [];
  for (const d of fs.readdirSync(contendersDir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!d.isDirectory() || d.name.startsWith('_') || d.name.startsWith('.')) continue;
    try {
      manifests.push(loadManifest(path.join(contendersDir, d.name), knownScenarios));
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      errors.push(e);
    }
  }
  return { manifests: manifests.sort((a, b) => a.name.localeCompare(b.name)), errors };
}
