/**
 * Writes compose/postgres-init/01-users.sql, the Docker Compose PostgreSQL init script, from
 * `seedSql()` of harness/services/users-seed.ts: the same text the harness runs against its
 * embedded PostgreSQL, so the compose database and the embedded one hold the same `users` rows.
 * Never edit the .sql file by hand; change users-seed.ts and run `node compose/gen-seed.ts`.
 * test/unit/compose.test.ts fails when the committed file differs from seedSql().
 *
 *   node compose/gen-seed.ts           write the file
 *   node compose/gen-seed.ts --check   exit 1 when the file is missing or out of date
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The generated init script (run by the postgres image's entrypoint with psql on first start). */
export const SEED_FILE = path.join(HERE, 'postgres-init', '01-users.sql');
/** The one definition of the users fixture. */
export const SEED_MODULE = path.join(HERE, '..', 'harness', 'services', 'users-seed.ts');

/** The exact text 01-users.sql must hold: seedSql(), unchanged. */
export async function seedFileContent(): Promise<string> {
  const { seedSql } = (await import(SEED_MODULE)) as { seedSql: () => string };
  return seedSql();
}

async function main(): Promise<void> {
  const want = await seedFileContent();
  const rel = path.relative(process.cwd(), SEED_FILE);
  if (process.argv.includes('--check')) {
    const have = fs.existsSync(SEED_FILE) ? fs.readFileSync(SEED_FILE, 'utf8') : null;
    if (have === want) return console.log(`${rel} is up to date`);
    console.error(`${rel} is ${have === null ? 'missing' : 'out of date'}: run \`node compose/gen-seed.ts\``);
    process.exit(1);
  }
  fs.mkdirSync(path.dirname(SEED_FILE), { recursive: true });
  const tmp = `${SEED_FILE}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, want);
  fs.renameSync(tmp, SEED_FILE);
  console.log(`wrote ${rel} (${Buffer.byteLength(want)} bytes)`);
}

if (import.meta.main) await main();
