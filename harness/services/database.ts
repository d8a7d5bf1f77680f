/**
 * The run's PostgreSQL, for cells whose contender requires a database or whose scenario needs
 * one: started embedded (or taken from DATABASE_URL) by services/postgres.ts, seeded with the
 * deterministic `users` table, checked (row count and checksum) before anything is measured,
 * and its first rows read for the graphql-users check.
 *
 * Never throws for an unavailable database: `ready` is false and `error` says why, so those
 * cells are reported as skipped and the REST cells run as before.
 * For an external target (`--url`) nothing is started: DATABASE_URL is used when set to read
 * the rows, else the rows come from the seed definition itself (the same generator that filled
 * the compose database).
 */
export interface RunDatabase {
  ready: boolean;
  url: string | null;
  error: string | null;
  firstUsers: { id: number; name: string; email: string }[] | undefined;
  meta: {
    external: boolean;
    version: string;
    settings: Record<string, string>;
    seed: { rows: number; checksum: string } | null;
    error: string | null;
  };
  close(): Promise<void>;
}

/** Opens (starts, seeds and checks) the run's database. See the module comment. */
export async function openDatabase(o: {
  cpus: string | null;
  log: (l: string) => void;
  external: boolean;
  signal: AbortSignal;
}): Promise<RunDatabase> {
  const fail = (error: string): RunDatabase => {
    o.log(`PostgreSQL unavailable, database cells will be skipped: ${error}`);
    return {
      ready: false,
      url: null,
      error,
      firstUsers: undefined,
      meta: { external: Boolean(process.env.DATABASE_URL), version: 'unknown', settings: {}, seed: null, error },
      close: async () => {},
    };
  };
  let pg: typeof import('./postgres.ts');
  let seed: typeof import('./users-seed.ts');
  try {
    pg = await import('./postgres.ts');
    seed = await import('./users-seed.ts');
  } catch (e) {
    return fail(`the PostgreSQL service module could not be loaded: ${(e as Error).message}`);
  }
  if (o.external && !process.env.DATABASE_URL) {
    const firstUsers = seed
      .generateUsers()
      .slice(0, 10)
      .map(({ id, name, email }) => ({ id, name, email }));
    o.log(
      'external target: expected graphql-users rows come from the seed definition (set DATABASE_URL to read them from the database)',
    );
    return {
      ready: true,
      url: null,
      error: null,
      firstUsers,
      meta: { external: true, version: 'unknown (external target)', settings: {}, seed: null, error: null },
      close: async () => {},
    };
  }
  let db: Awaited<ReturnType<typeof pg.startPostgres>>;
  try {
    db = await pg.startPostgres({ cpus: o.cpus, log: o.log });
  } catch (e) {
    return fail((e as Error).message);
  }
  try {
    if (!db.external) await pg.seedUsers(db.url);
    const check = await pg.checkSeed(db.url);
    if (check.rows !== pg.EXPECTED_SEED.rows || check.checksum !== pg.EXPECTED_SEED.checksum) {
      throw new Error(
        `the users table does not match the seed (rows ${check.rows}, checksum ${check.checksum}; expected ${pg.EXPECTED_SEED.rows}, ${pg.EXPECTED_SEED.checksum})${db.external ? "; seed it with the project's seed (compose/postgres-init) or unset DATABASE_URL" : ''}`,
      );
    }
    const firstUsers = await pg.firstUsers(db.url, 10);
    o.log(
      `PostgreSQL ${db.version} at ${db.url.replace(/:[^:@/]*@/, ':***@')}${db.external ? ' (DATABASE_URL)' : ' (embedded)'}; users: ${check.rows} rows, checksum ${check.checksum}`,
    );
    return {
      ready: true,
      url: db.url,
      error: null,
      firstUsers,
      meta: { external: db.external, version: db.version, settings: db.settings, seed: check, error: null },
      close: () => db.stop(),
    };
  } catch (e) {
    await db.stop();
    return fail((e as Error).message);
  }
}
