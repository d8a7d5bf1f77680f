/**
 * The run's PostgreSQL, for cells whose contender requires a database or whose scenario needs
 * one: started embedded (or taken from DATABASE_URL) by services/postgres.ts, seeded with the
 * deterministic `users` table, checked (row count and checksum) before anything is measured,
 * and its first rows read for the graphql-users check and a fixed sample of rows (`sampleUsers`,
 * users-seed.ts `sampleUserIds()`) for graphql-node's per-request random ids. `alive()` tells
 * whether the database still answers `SELECT 1` (the scheduler asks after each measured window of
 * a database cell); `pid` is the embedded postmaster (a fault test SIGKILLs it mid-cell).
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
  /** SAMPLE_SIZE (256) seeded rows with fixed ids, read from the database; undefined when not ready. */
  sampleUsers: { id: number; name: string; email: string }[] | undefined;
  /**
   * The embedded postmaster's pid, or null (external or none). Its backends are its child
   * processes in their own sessions (they call setsid()): to freeze or kill the whole server,
   * signal the postmaster and each descendant.
   */
  pid: number | null;
  /**
   * True when the database answers `SELECT 1` within about 1 s; false when it does not (stopped,
   * killed, unreachable, or never ready). Never throws. For an external target without
   * DATABASE_URL there is nothing to ask: true.
   */
  alive(): Promise<boolean>;
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
      sampleUsers: undefined,
      pid: null,
      alive: async () => false,
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
    const all = seed.generateUsers().map(({ id, name, email }) => ({ id, name, email }));
    const firstUsers = all.slice(0, 10);
    const sampleUsers = seed.sampleUserIds().flatMap((id) => all.slice(id - 1, id)); // ids are 1..USER_COUNT
    o.log(
      'external target: expected graphql-users rows come from the users fixture definition (set DATABASE_URL to read them from the database)',
    );
    return {
      ready: true,
      url: null,
      error: null,
      firstUsers,
      sampleUsers,
      pid: null,
      alive: async () => true,
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
  const url = db.url;
  try {
    if (!db.external) await pg.seedUsers(db.url);
    const check = await pg.checkSeed(db.url);
    if (check.rows !== pg.EXPECTED_SEED.rows || check.checksum !== pg.EXPECTED_SEED.checksum) {
      throw new Error(
        `the users table does not match the users fixture (rows ${check.rows}, checksum ${check.checksum}; expected ${pg.EXPECTED_SEED.rows}, ${pg.EXPECTED_SEED.checksum})${db.external ? "; load the project's users fixture (compose/postgres-init/01-users.sql) or unset DATABASE_URL" : ''}`,
      );
    }
    const firstUsers = await pg.firstUsers(db.url, 10);
    const sampleUsers = await pg.sampleUsers(db.url);
    if (sampleUsers.length !== seed.SAMPLE_SIZE)
      throw new Error(`expected ${seed.SAMPLE_SIZE} sampled users, the database has ${sampleUsers.length}`);
    o.log(
      `PostgreSQL ${db.version} at ${db.url.replace(/:[^:@/]*@/, ':***@')}${db.external ? ' (DATABASE_URL)' : ' (embedded)'}; users: ${check.rows} rows, checksum ${check.checksum}`,
    );
    return {
      ready: true,
      url: db.url,
      error: null,
      firstUsers,
      sampleUsers,
      pid: db.pid,
      alive: () => pg.databaseAlive(url),
      meta: { external: db.external, version: db.version, settings: db.settings, seed: check, error: null },
      close: () => db.stop(),
    };
  } catch (e) {
    await db.stop();
    return fail((e as Error).message);
  }
}
