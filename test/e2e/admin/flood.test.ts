import { adminFixture, type AdminFixture } from '../token/admin-fixture';

jest.setTimeout(120_000);

/**
 * An administrator's flood, as an outsider holding an admin token would send it: many writes at
 * once, on one object and on many, and huge lists. Every answer is a clear one (never a 500),
 * nothing is lost or doubled, and people keep signing in meanwhile.
 */
describe('a flood of admin writes', () => {
  let f: AdminFixture;
  beforeAll(async () => {
    f = await adminFixture();
  });
  afterAll(() => f?.stop());

  it('200 users created at once: each made exactly once, listed once, while the administrator still signs in', async () => {
    const names = Array.from({ length: 200 }, (_, i) => `flood-${String(i).padStart(3, '0')}`);
    const signIn = f.login(f.realm, 'admin', f.adminPassword);
    const made = await Promise.all(
      [...names, ...names.slice(0, 20)].map((username) =>
        f.call('POST', `/realms/${f.realm}/users`, { auth: f.platform, body: { username, password: 'flood-password-1' } }),
      ),
    );
    expect((await signIn).status).toBe(200);
    const statuses = made.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((s) => s === 201)).toHaveLength(200);
    expect(statuses.filter((s) => s === 409)).toHaveLength(20);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await f.call('GET', `/realms/${f.realm}/users?q=flood-&limit=200${cursor ? `&cursor=${cursor}` : ''}`, {
        auth: f.platform,
      });
      expect(page.status).toBe(200);
      seen.push(...(page.body.items as { username: string }[]).map((u) => u.username));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen.sort()).toEqual(names);
  });

  it('50 updates of one user at once without If-Match: each applies or is refused clearly, and the version counts those applied', async () => {
    const before = await f.call('GET', `/realms/${f.realm}/users/flood-000`, { auth: f.platform });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        f.call('PATCH', `/realms/${f.realm}/users/flood-000`, { auth: f.platform, body: { email: `u${i}@example.org` } }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const applied = statuses.filter((s) => s === 200).length;
    expect(applied).toBeGreaterThan(0);
    const after = await f.call('GET', `/realms/${f.realm}/users/flood-000`, { auth: f.platform });
    expect(after.body.version).toBe(before.body.version + applied);
  });

  it('50 updates of one user at once from one read version: exactly one applies, the rest are 412', async () => {
    const read = await f.call('GET', `/realms/${f.realm}/users/flood-001`, { auth: f.platform });
    const etag = read.headers.get('etag')!;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        f.call('PATCH', `/realms/${f.realm}/users/flood-001`, {
          auth: f.platform,
          headers: { 'if-match': etag },
          body: { roles: [`r${i}`] },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array<number>(49).fill(412)]);
  });

  it('refuses a page larger than 200 and a huge body with clear errors', async () => {
    expect((await f.call('GET', `/realms/${f.realm}/users?limit=100000`, { auth: f.platform })).status).toBe(422);
    const huge = await f.call('POST', `/realms/${f.realm}/users`, {
      auth: f.platform,
      body: { username: 'huge', password: 'huge-password-1', roles: Array.from({ length: 200_000 }, (_, i) => `role-${i}`) },
    });
    expect([413, 422]).toContain(huge.status);
    const deep = await fetch(`${f.url}/admin/api/v1/realms/${f.realm}/users/flood-002`, {
      method: 'PATCH',
      headers: { authorization: f.platform, 'content-type': 'application/json' },
      body: `{"email":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    });
    expect([400, 413, 422]).toContain(deep.status);
    expect(await deep.json()).toEqual({ detail: expect.anything() });
  });
});
