import { randomBytes } from 'node:crypto';
import { migrate, openPool } from '../../../core/shared/postgres';
import { TOKEN_PG_MIGRATIONS, pgTokenStore } from '../../../core/token/postgres';
import { DATABASE_URL, describePg, freshDatabase, sharedTestDatabase } from '../../shared/postgres';
import { REVOCATIONS } from '../../../core/token/postgres/revocations';
import { eventually } from '../../shared/replicas';
import { tokenStoreContract } from './store-contracts';
import { pageCases } from './store-contracts-pages';
import { givenRealm, sessionRecord, useOpened, type Opened } from './store-fixtures';
import type { TokenStore } from '../../../core/token/ports';

const MIGRATIONS = [{ scope: 'token', sql: TOKEN_PG_MIGRATIONS }];

/** A database of its own, migrated, with two pools on it (two replicas); dropped on close. */
async function freshStores(): Promise<Opened<TokenStore> & { database: string }> {
  const db = await freshDatabase();
  const pools = [openPool(db.url, { max: 4 }), openPool(db.url, { max: 4 })] as const;
  await migrate(pools[0], 'token', TOKEN_PG_MIGRATIONS);
  const [one, two] = pools.map((p) => pgTokenStore(p)) as [TokenStore, TokenStore];
  let now = Date.now();
  return {
    one,
    two,
    database: new URL(db.url).pathname.slice(1),
    now: () => now,
    advance: async (ms) => void (now += ms),
    close: async () => {
      await Promise.all([one.close(), two.close()]);
      await Promise.all(pools.map((p) => p.end()));
      await db.drop();
    },
  };
}

/** The token store on PostgreSQL passes the same contract as token.db, two pools being two replicas (DATABASE_URL). */
describePg('the token store on PostgreSQL', () => {
  const shared = sharedTestDatabase(MIGRATIONS);
  tokenStoreContract('PostgreSQL', async (opts) => {
    if (opts?.fresh) return freshStores();
    const s = await shared((pool) => pgTokenStore(pool));
    return {
      ...s,
      close: async () => {
        await Promise.all([s.one.close(), s.two.close()]);
        await s.close();
      },
    };
  });
});

/** The revoked-sessions feed's follower on PostgreSQL: a replica whose listening connection is cut hears again. */
describePg('the revoked-sessions feed on PostgreSQL, its listener cut', () => {
  it("listens again when its connection is cut, and a follower hears the other replica's revocations after", async () => {
    const s = await freshStores();
    const followers: (() => void)[] = [];
    try {
      const { realm } = await givenRealm(s.one);
      let told = 0;
      followers.push(s.two.revocations.follow(() => told++));
      const admin = openPool(process.env.DATABASE_URL!, { max: 1 });
      const mine = 'application_name = $1 AND datname = $2';
      const listeners = () => admin.query(`SELECT pid FROM pg_stat_activity WHERE ${mine}`, [REVOCATIONS.listenerName, s.database]);
      await eventually(async () => (await listeners()).rowCount === 1);
      const cut = await admin.query(`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE ${mine}`, [
        REVOCATIONS.listenerName,
        s.database,
      ]);
      expect(cut.rows[0].n).toBe(1);
      // Listening again tells the follower (entries may have come meanwhile), and it listens again.
      const before = told;
      await eventually(async () => told > before && (await listeners()).rowCount === 1);
      const session = sessionRecord(realm.id);
      await s.one.sessions.write(session);
      const beforeRevoke = told;
      await s.one.sessions.revoke(session.id, s.now(), s.now() + 300_000);
      await eventually(async () => told > beforeRevoke);
      expect((await s.two.revocations.read()).entries.map((e) => e.subject)).toContain(session.id);
      await admin.end();
    } finally {
      followers.forEach((stop) => stop());
      await s.close();
    }
  });
});

/**
 * The admin lists' pages in a database whose own collation is a language's (ICU en-US, which sorts
 * `_`, `-` and case unlike bytes): the same order as JavaScript's, since the pages compare in COLLATE "C".
 */
describePg('the admin pages on PostgreSQL in a database of another collation', () => {
  const s = useOpened(async (): Promise<Opened<TokenStore>> => {
    const name = `platform_test_icu_${randomBytes(6).toString('hex')}`;
    const server = openPool(DATABASE_URL!, { max: 1 });
    await server.query(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`);
    const url = new URL(DATABASE_URL!);
    url.pathname = `/${name}`;
    const pools = [openPool(url.toString(), { max: 4 }), openPool(url.toString(), { max: 4 })] as const;
    await migrate(pools[0], 'token', TOKEN_PG_MIGRATIONS);
    const [one, two] = pools.map((p) => pgTokenStore(p)) as [TokenStore, TokenStore];
    return {
      one,
      two,
      now: () => 0,
      advance: async () => undefined,
      close: async () => {
        await Promise.all([one.close(), two.close()]);
        await Promise.all(pools.map((p) => p.end()));
        await server.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await server.end();
      },
    };
  });
  pageCases(s);
});
