import { keysetOf, keysetPage, pageOf, type Keyset, type KeysetRows, type Page } from '../../../core/shared/admin/paging';
import type { ClientRecord, TokenStore, UserRecord } from '../../../core/token/ports';
import { clientRecord, givenRealm, T0, userRecord, type Opened } from './store-fixtures';

/** A small seeded generator (mulberry32): the same "random" realm on every run and engine. */
function seeded(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = (chars: string) => chars[int(chars.length)];
  return { next, int, pick };
}

/** Letters of both cases, digits and the other characters names may hold (admin.ts), so byte order and case folding both matter. */
const CHARS = 'abcXYZ019._:@-';
const ROLES = ['a', 'ab', 'search:read', 'x_y', 'ops'];
const SIZES = [1, 7, 50];

type Ask = { q?: string; enabled?: boolean };
const contains = (value: string, q: string | undefined) => q === undefined || value.toLowerCase().includes(q.toLowerCase());

/**
 * Every page a list gives, read through the port (`page`) and through `pageOf` over the whole
 * list filtered in JavaScript (the order the admin lists always had): the same items, cursors and
 * totals, page after page.
 */
async function samePages<T, S extends string>(
  all: readonly T[],
  sorts: Record<S, 'string' | 'number'>,
  opts: {
    keyOf: (t: T) => string;
    valueOf: (t: T, sort: S) => string | number;
    idOf: (t: T) => string;
    page: (keyset: Keyset<S>) => Promise<KeysetRows<T>>;
  },
  sort: string,
  limit: number,
): Promise<number> {
  const oracleSorts = Object.fromEntries(Object.keys(sorts).map((s) => [s, (t: T) => opts.valueOf(t, s as S)])) as Record<
    string,
    (t: T) => string | number
  >;
  let cursor: string | undefined;
  let pages = 0;
  do {
    const expected: Page<T> = pageOf(all, { sort, limit, cursor }, { keyOf: opts.keyOf, sorts: oracleSorts });
    const keyset = keysetOf({ sort, limit, cursor }, sorts);
    const found = await opts.page(keyset);
    expect(found.records.length).toBeLessThanOrEqual(limit + 1);
    const got = keysetPage(found, keyset, (t) => [opts.valueOf(t, keyset.sort), opts.keyOf(t)]);
    const where = `sort ${sort}, limit ${limit}, page ${pages}`;
    expect({ where, ids: got.items.map(opts.idOf), next: got.nextCursor, total: got.total }).toEqual({
      where,
      ids: expected.items.map(opts.idOf),
      next: expected.nextCursor,
      total: expected.total,
    });
    cursor = got.nextCursor ?? undefined;
    pages++;
  } while (cursor);
  return pages;
}

/**
 * The two cases that read every sort, page size and filter of 300 records (hundreds of queries): on
 * PostgreSQL under a full parallel suite they have taken over the default 30 s, so they get more.
 */
const HEAVY = 180_000;

/** The admin lists' pages read in the store (keyset paging), part of the token store contract (store-contracts.ts). */
export function pageCases(s: () => Opened<TokenStore>) {
  describe('pages of users and clients', () => {
    it(
      'users: every sort both ways, pages of 1, 7 and 50, with each filter: the order, cursors and totals of the whole list sorted in JavaScript',
      async () => {
        const { one, two } = s();
        const { realm } = await givenRealm(one);
        const other = await givenRealm(one);
        const r = seeded(33);
        const users: UserRecord[] = [];
        const taken = new Set<string>();
        while (users.length < 300) {
          const username = CHARS[r.int(12)] + Array.from({ length: 1 + r.int(6) }, () => r.pick(CHARS)).join('');
          if (taken.has(username.toLowerCase())) continue;
          taken.add(username.toLowerCase());
          const u = userRecord(realm.id, {
            username,
            enabled: r.next() < 0.7,
            roles: ROLES.filter(() => r.next() < 0.3),
            // Few instants: many ties, broken by the id.
            createdAt: T0 + r.int(25) * 1000,
          });
          expect(await (users.length % 2 ? one : two).users.insert(u)).toBe(true);
          users.push(u);
        }
        // Another realm's users are never in the list.
        await one.users.insert(userRecord(other.realm.id, { username: users[0].username }));

        const sorts = { username: 'string', created_at: 'number' } as const;
        const filters: (Ask & { role?: string })[] = [
          {},
          { q: 'A' },
          { enabled: false },
          { role: 'ab' },
          { q: 'x', enabled: true, role: 'a' },
        ];
        for (const filter of filters) {
          const listed = users.filter(
            (u) =>
              contains(u.username, filter.q) &&
              (filter.enabled === undefined || u.enabled === filter.enabled) &&
              (filter.role === undefined || u.roles.includes(filter.role)),
          );
          expect(listed.length).toBeGreaterThan(3);
          for (const sort of ['username', '-username', 'created_at', '-created_at'])
            for (const limit of SIZES) {
              await samePages(
                listed,
                sorts,
                {
                  keyOf: (u) => u.id,
                  idOf: (u) => u.username,
                  valueOf: (u, by) => (by === 'username' ? u.username.toLowerCase() : u.createdAt),
                  page: (keyset) => two.users.page(realm.id, { ...keyset, ...filter }),
                },
                sort,
                limit,
              );
            }
        }
      },
      HEAVY,
    );

    it(
      'clients: every sort both ways, pages of 1, 7 and 50, with each filter: the order, cursors and totals of the whole list sorted in JavaScript',
      async () => {
        const { one, two } = s();
        const { realm } = await givenRealm(one);
        const r = seeded(44);
        const clients: ClientRecord[] = [];
        const taken = new Set<string>();
        while (clients.length < 300) {
          // Client ids are exact: `Ab` and `ab` are two clients, sorted in byte order.
          const clientId = CHARS[r.int(12)] + Array.from({ length: 1 + r.int(5) }, () => r.pick(CHARS)).join('');
          if (taken.has(clientId)) continue;
          taken.add(clientId);
          const c = clientRecord(realm.id, {
            clientId,
            enabled: r.next() < 0.7,
            secretHash: r.next() < 0.4 ? null : 'hmac-sha256$x',
            createdAt: T0 + r.int(25) * 1000,
          });
          expect(await (clients.length % 2 ? one : two).clients.insert(c)).toBe(true);
          clients.push(c);
        }
        const sorts = { client_id: 'string', created_at: 'number' } as const;
        const filters: (Ask & { public?: boolean })[] = [{}, { q: 'Z' }, { public: true }, { enabled: true, public: false, q: 'a' }];
        for (const filter of filters) {
          const listed = clients.filter(
            (c) =>
              contains(c.clientId, filter.q) &&
              (filter.enabled === undefined || c.enabled === filter.enabled) &&
              (filter.public === undefined || (c.secretHash === null) === filter.public),
          );
          expect(listed.length).toBeGreaterThan(3);
          for (const sort of ['client_id', '-client_id', 'created_at', '-created_at'])
            for (const limit of SIZES) {
              await samePages(
                listed,
                sorts,
                {
                  keyOf: (c) => c.clientId,
                  idOf: (c) => c.clientId,
                  valueOf: (c, by) => (by === 'client_id' ? c.clientId : c.createdAt),
                  page: (keyset) => one.clients.page(realm.id, { ...keyset, ...filter }),
                },
                sort,
                limit,
              );
            }
        }
      },
      HEAVY,
    );

    it('matches `%`, `_` and `\\` in what is asked as plain characters, in any case; a role exactly', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      // Stored directly: the store matches whatever names it holds (the admin API allows fewer).
      const names = ['a%b', 'aXb', 'A_B', 'aab', 'a\\b', 'plain'];
      for (const username of names) await one.users.insert(userRecord(realm.id, { username, roles: username === 'aab' ? ['ab'] : ['a'] }));
      for (const clientId of names) await one.clients.insert(clientRecord(realm.id, { clientId }));
      const first = { sort: 'username', desc: false, limit: 50 } as const;
      const usernames = async (ask: { q?: string; role?: string }) => {
        const page = await two.users.page(realm.id, { ...first, ...ask });
        return { names: page.records.map((u) => u.username), total: page.total };
      };
      expect(await usernames({ q: '%' })).toEqual({ names: ['a%b'], total: 1 });
      expect(await usernames({ q: '_' })).toEqual({ names: ['A_B'], total: 1 });
      expect(await usernames({ q: 'a_b' })).toEqual({ names: ['A_B'], total: 1 });
      expect(await usernames({ q: '\\' })).toEqual({ names: ['a\\b'], total: 1 });
      expect(await usernames({ q: 'A%' })).toEqual({ names: ['a%b'], total: 1 });
      expect(await usernames({ q: 'nobody' })).toEqual({ names: [], total: 0 });
      // No name or role holds NUL (and PostgreSQL takes none in text): nothing, never an error.
      expect(await usernames({ q: 'a\u0000' })).toEqual({ names: [], total: 0 });
      expect(await usernames({ role: 'a\u0000' })).toEqual({ names: [], total: 0 });
      expect(await usernames({ role: 'a' })).toEqual({ names: names.filter((n) => n !== 'aab').sort(byLower), total: 5 });
      expect(await usernames({ role: 'b' })).toEqual({ names: [], total: 0 });
      const clientIds = async (q: string) =>
        (await two.clients.page(realm.id, { sort: 'client_id', desc: false, limit: 50, q })).records.map((c) => c.clientId);
      expect(await clientIds('%')).toEqual(['a%b']);
      expect(await clientIds('_b')).toEqual(['A_B']);
      expect(await clientIds('\\')).toEqual(['a\\b']);
      expect(await clientIds('\u0000')).toEqual([]);
    });

    it('answers nothing past the last position, and the total over every page whatever the cursor', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      const [, bob] = ['ann', 'Bob', 'cy'].map((username) => userRecord(realm.id, { username }));
      for (const u of [...['ann', 'cy'].map((username) => userRecord(realm.id, { username })), bob]) await one.users.insert(u);
      const past = await two.users.page(realm.id, { sort: 'username', desc: false, limit: 2, after: ['zzz', ''] });
      expect(past).toEqual({ records: [], total: 3 });
      // After Bob going down: Ann; a position names the sort value as compared (lower case) and the key.
      const before = await two.users.page(realm.id, { sort: 'username', desc: true, limit: 2, after: ['bob', bob.id] });
      expect({ names: before.records.map((u) => u.username), total: before.total }).toEqual({ names: ['ann'], total: 3 });
      // A limit + 1st record says there is more: the port answers it, the caller cuts it off.
      expect((await two.users.page(realm.id, { sort: 'created_at', desc: false, limit: 2 })).records).toHaveLength(3);
      // Instants beyond any a store holds (a forged cursor) are only far positions.
      for (const at of [-8.64e15, 8.64e15])
        expect((await two.users.page(realm.id, { sort: 'created_at', desc: at > 0, limit: 5, after: [at, ''] })).records).toHaveLength(3);
    });
  });
}

const byLower = (a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1);
