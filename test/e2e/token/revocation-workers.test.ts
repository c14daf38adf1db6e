import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPlatformProcess, stopProcess, type PlatformProcess } from '../shared/processes';
import { freePort, platformCli } from '../shared/server';
import {
  accepts,
  clientToken,
  FACES,
  login,
  refusedEverywhere,
  revokeByGraphql,
  revokeByRest,
  reuseRefreshToken,
  waitFor,
  type Bootstrap,
  type Sent,
  type Tokens,
} from './revocation-faces';

/**
 * `platform start` with two worker processes sharing the SQLite files: a session ended through one
 * worker (or by a `platform` command, a third process) is refused by every worker on search, the
 * chat proxy and /graphql, without waiting for its access token to expire. Every request goes on a
 * connection of its own, so the primary hands them to both workers in turn; the access log's pid of
 * each request shows that both refused.
 */
// Each case waits for the refusal for up to a minute (a machine under load), with room to spare.
jest.setTimeout(120_000);

describe('revocation seen by every worker of platform start (WORKERS=2, SQLite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-revocation-workers-'));
  let server: PlatformProcess;
  let boot: Bootstrap;
  let n = 0;

  beforeAll(async () => {
    server = await startPlatformProcess(
      ['start'],
      { PLATFORM_DATA_DIR: dataDir, PORT: String(await freePort()), WORKERS: '2', LOG_LEVEL: 'info' },
      90_000,
    );
    boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Bootstrap;
  }, 120_000);
  afterAll(async () => {
    if (server) await stopProcess(server.child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) => {
    const r = await platformCli(dataDir, args);
    if (r.status !== 0) throw new Error(`platform ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, string>;
  };

  /** The pids that served these request ids, from the access log (waits for every line). */
  const servedBy = async (ids: string[]) => {
    const pids = new Map<string, number>();
    for (let i = 0; i < 400 && pids.size < ids.length; i++) {
      for (const line of server.output().split('\n')) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { reqId?: string; pid?: number; msg?: string };
        if (entry.msg === 'request' && entry.reqId && ids.includes(entry.reqId)) pids.set(entry.reqId, entry.pid!);
      }
      if (pids.size < ids.length) await sleep(50);
    }
    return new Set(pids.values());
  };

  /** The token works on every face, then, once `end` ran, is refused by every face of both workers. */
  async function endsEverywhere(token: string, end: () => Promise<unknown>) {
    for (const face of FACES) expect(await accepts(server.url, face, token, boot.tenant_id)).toBe(true);
    await end();
    const last: Sent = { ids: [] };
    await waitFor(async () => {
      last.ids = [];
      return refusedEverywhere(server.url, token, boot.tenant_id, 4, last);
    }, 'refused by every face of every worker');
    expect((await servedBy(last.ids)).size).toBe(2);
  }

  it('a token revoked (RFC 7009) through one worker', async () => {
    const t = await login(server.url, boot);
    await endsEverywhere(t.access_token, () => revokeByRest(server.url, boot, t.refresh_token));
  });

  it('a token revoked by the GraphQL revokeToken mutation', async () => {
    const t = await login(server.url, boot);
    await endsEverywhere(t.access_token, () => revokeByGraphql(server.url, boot, t.access_token));
  });

  /** A user of the demo tenant with search:read, made by the CLI (a process of its own). */
  const createUser = (username: string) =>
    cli('user', 'create', '--username', username, '--password', 'a long password', '--roles', 'search:read', '--tenant', boot.tenant_id);

  it('every token of a user disabled by `platform user disable`, a third process', async () => {
    const username = `ann-${n++}`;
    await createUser(username);
    const t = await login(server.url, boot, username, 'a long password');
    await endsEverywhere(t.access_token, () => cli('user', 'disable', '--username', username));
  });

  it('every token of a client disabled by `platform client disable`', async () => {
    const clientId = `svc-${n++}`;
    const c = await cli('client', 'create', '--client-id', clientId, '--roles', 'search:read', '--tenant', boot.tenant_id);
    const t = await clientToken(server.url, boot, clientId, c.client_secret);
    await endsEverywhere(t.access_token, () => cli('client', 'disable', '--client-id', clientId));
  });

  it('the tokens of a session whose refresh token was used twice', async () => {
    const first = await login(server.url, boot);
    let rotated: Tokens | undefined;
    await endsEverywhere(first.access_token, async () => {
      rotated = await reuseRefreshToken(server.url, boot, first);
    });
    await waitFor(() => refusedEverywhere(server.url, rotated!.access_token, boot.tenant_id, 4), 'the rotated token refused everywhere');
  });

  it('a user logged in again after being enabled is served: only the sessions that were ended are refused', async () => {
    const username = `bob-${n++}`;
    await createUser(username);
    const old = await login(server.url, boot, username, 'a long password');
    await cli('user', 'disable', '--username', username);
    await cli('user', 'enable', '--username', username);
    const again = await login(server.url, boot, username, 'a long password');
    await waitFor(() => refusedEverywhere(server.url, old.access_token, boot.tenant_id, 4), 'the old token refused everywhere');
    for (const face of FACES)
      for (let i = 0; i < 4; i++) expect(await accepts(server.url, face, again.access_token, boot.tenant_id)).toBe(true);
  });
});
