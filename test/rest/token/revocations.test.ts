import { decodeJwt } from 'jose';
import request from 'supertest';
import { hashedSubject } from '../../../core/shared/auth/revocations';
import { tokenFixture, type TokenFixture } from '../../shared/helpers';

const LIST = '/auth/api/v1/revocations';
const REVOKE = '/auth/api/v1/oauth/connect/revoke';

/** GET /auth/api/v1/revocations: the revoked-sessions list that verifiers apart from the token service poll. */
describe('GET /revocations', () => {
  let f: TokenFixture;
  beforeAll(async () => {
    f = await tokenFixture();
  });

  const tokens = async () =>
    (
      await request(f.app)
        .post('/auth/api/v1/oauth/connect/token')
        .query({ realm: f.realm, ...f.client })
    ).body as { access_token: string; refresh_token: string };

  it('answers the whole list, then only what came after where a reader stands, without caching', async () => {
    const all = await request(f.app).get(LIST);
    expect(all.status).toBe(200);
    expect(all.headers['cache-control']).toBe('no-store');
    expect(all.body).toEqual({
      feed: expect.stringMatching(/^[0-9a-f]{32}$/),
      last: expect.any(Number),
      full: true,
      entries: expect.any(Array),
    });
    const { feed, last } = all.body as { feed: string; last: number };

    const t = await tokens();
    expect((await request(f.app).post(REVOKE).query({ realm: f.realm, token: t.access_token })).status).toBe(200);
    const next = await request(f.app).get(LIST).query({ feed, after: last });
    expect(next.body).toEqual({
      feed,
      last: last + 1,
      full: false,
      entries: [{ realm: f.realm, kind: 'session', subject: decodeJwt(t.access_token).sid, up_to: 0, until: expect.any(Number) }],
    });
    expect(
      (
        await request(f.app)
          .get(LIST)
          .query({ feed, after: last + 1 })
      ).body,
    ).toEqual({ feed, last: last + 1, full: false, entries: [] });
  });

  it('names users and clients only by a hash of their id', async () => {
    await tokens();
    await f.core.admin.setClientEnabled(f.realm, f.client.client_id, false);
    const entries = (await request(f.app).get(LIST)).body.entries as { kind: string; subject: string }[];
    expect(entries.at(-1)).toMatchObject({ kind: 'client', subject: hashedSubject(f.client.client_id) });
    expect(JSON.stringify(entries)).not.toContain(f.client.client_id);
    await f.core.admin.setClientEnabled(f.realm, f.client.client_id, true);
  });

  it('answers the whole list again to a cursor of another list, or past its end', async () => {
    const { feed, last } = (await request(f.app).get(LIST)).body as { feed: string; last: number };
    for (const query of [
      { feed: 'ab'.repeat(16), after: last },
      { feed, after: last + 1000 },
    ]) {
      expect((await request(f.app).get(LIST).query(query)).body).toMatchObject({ feed, last, full: true });
    }
  });

  it('refuses a malformed cursor with 422 naming it', async () => {
    for (const [query, loc] of [
      [{ feed: 'not hex!', after: '1' }, 'feed'],
      [{ after: '-1' }, 'after'],
      [{ after: 'x' }, 'after'],
    ] as const) {
      const res = await request(f.app).get(LIST).query(query);
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', loc]);
    }
  });
});
