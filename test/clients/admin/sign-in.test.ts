import { seg } from '../../../clients/admin/connection';
import { signInFrom } from '../../../clients/admin/sign-in';
import { remoteUrl } from '../../../bin/remote-admin';
import { everyItem } from '../../../services/shared/admin-cli';
import { UsageError } from '../../../services/shared/cli';

describe('the platform command against a remote platform: credentials, address, pages', () => {
  it('takes the first credentials found: --token, PLATFORM_TOKEN, an admin client, an admin password', () => {
    const all = {
      PLATFORM_TOKEN: 'env-token',
      PLATFORM_CLIENT_ID: 'ops',
      PLATFORM_CLIENT_SECRET: 's3',
      PLATFORM_REALM: 'r1',
      ADMIN_USERNAME: 'admin',
      ADMIN_PASSWORD: 'pw',
      REALM: 'r2',
    };
    expect(signInFrom('flag-token', all)).toEqual({ kind: 'token', token: 'flag-token' });
    expect(signInFrom(undefined, all)).toEqual({ kind: 'token', token: 'env-token' });
    expect(signInFrom(undefined, { ...all, PLATFORM_TOKEN: '' })).toEqual({
      kind: 'client',
      realm: 'r1',
      clientId: 'ops',
      clientSecret: 's3',
    });
    // A client id without its secret is not a client's credentials: the password comes next.
    expect(signInFrom(undefined, { ...all, PLATFORM_TOKEN: undefined, PLATFORM_CLIENT_SECRET: undefined })).toEqual({
      kind: 'password',
      realm: 'r1',
      username: 'admin',
      password: 'pw',
    });
    // `platform credentials --shell` exports REALM: the admin's realm when PLATFORM_REALM is not set.
    expect(signInFrom(undefined, { ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: 'pw', REALM: 'r2' })).toMatchObject({ realm: 'r2' });
    expect(signInFrom(undefined, { ADMIN_USERNAME: 'admin' })).toBeUndefined();
  });

  it('takes an http(s) address without credentials in it; none means the data directory', () => {
    expect(remoteUrl({}, {})).toBeUndefined();
    expect(remoteUrl({}, { PLATFORM_URL: 'http://h:8080/' })).toBe('http://h:8080');
    expect(remoteUrl({ url: 'https://h/base/' }, { PLATFORM_URL: 'http://other' })).toBe('https://h/base');
    for (const bad of ['ftp://h', 'not a url', 'http://user:pw@h']) expect(() => remoteUrl({ url: bad }, {})).toThrow(UsageError);
  });

  it('puts what the operator typed in one path segment, never a relative one', () => {
    expect(seg('a/b?c#d')).toBe('a%2Fb%3Fc%23d');
    for (const bad of ['', '.', '..']) expect(() => seg(bad)).toThrow(/names no object/);
  });

  it('prints every item of a list, page after page, or the first --limit ones', async () => {
    const items = Array.from({ length: 450 }, (_, i) => i);
    const asked: (number | undefined)[] = [];
    const list = async ({ limit = 50, cursor }: { limit?: number; cursor?: string }) => {
      asked.push(limit);
      const start = Number(cursor ?? 0);
      const next = start + limit < items.length ? String(start + limit) : null;
      return { items: items.slice(start, start + limit), next_cursor: next };
    };
    expect(await everyItem(list, {})).toEqual(items);
    expect(asked).toEqual([200, 200, 200]);
    asked.length = 0;
    expect(await everyItem(list, { limit: '250' })).toEqual(items.slice(0, 250));
    expect(asked).toEqual([200, 50]);
    await expect(everyItem(list, { limit: '0' })).rejects.toThrow('--limit takes a positive whole number');
  });
});
