import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopProcess } from '../shared/processes';
import { ROOT, run } from '../shared/server';
import { describeReplicas, startReplicas, type ReplicaSet } from '../../shared/replicas';
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
  type Tokens,
} from '../token/revocation-faces';

// Each case waits for the refusal for up to a minute (a machine under load), with room to spare.
jest.setTimeout(120_000);

/**
 * Two replicas on one PostgreSQL database (and Redis): a session ended on replica A, or by a
 * `platform` command against the database, is refused by replica B on search, the chat proxy and
 * /graphql, without waiting for its access token to expire (B hears of it through the revoked-sessions
 * feed: LISTEN/NOTIFY and the token_revocations table).
 */
describeReplicas('revocation seen by another replica (PostgreSQL)', () => {
  let set: ReplicaSet;
  let boot: Bootstrap;
  let A: string;
  let B: string;
  let cliDir: string;
  let n = 0;

  beforeAll(async () => {
    set = await startReplicas({ count: 2 });
    boot = set.credentials() as unknown as Bootstrap;
    [A, B] = set.replicas.map((r) => r.url) as [string, string];
    cliDir = mkdtempSync(join(tmpdir(), 'revocation-replicas-cli-'));
  }, 180_000);
  afterAll(async () => {
    await set?.stop();
    if (cliDir) rmSync(cliDir, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) => {
    const r = await run(process.execPath, [join(ROOT, 'dist', 'bin', 'platform.js'), ...args], {
      env: { ...set.env, PLATFORM_DATA_DIR: cliDir },
    });
    if (r.status !== 0) throw new Error(`platform ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, string>;
  };

  /** The token works on every face of B, then, once `end` ran, B refuses it on every face. */
  async function endsOnB(token: string, end: () => Promise<unknown>) {
    for (const face of FACES) expect(await accepts(B, face, token, boot.tenant_id)).toBe(true);
    await end();
    await waitFor(() => refusedEverywhere(B, token, boot.tenant_id, 1), 'refused by every face of replica B');
    await waitFor(() => refusedEverywhere(A, token, boot.tenant_id, 1), 'refused by every face of replica A');
  }

  it('a token revoked (RFC 7009) on replica A', async () => {
    const t = await login(A, boot);
    await endsOnB(t.access_token, () => revokeByRest(A, boot, t.refresh_token));
  });

  it('a token revoked by the GraphQL revokeToken mutation on replica A', async () => {
    const t = await login(A, boot);
    await endsOnB(t.access_token, () => revokeByGraphql(A, boot, t.access_token));
  });

  it('every token of a user disabled by `platform user disable` against the database', async () => {
    const username = `ann-${n++}`;
    await cli(
      'user',
      'create',
      '--username',
      username,
      '--password',
      'a long password',
      '--roles',
      'search:read',
      '--tenant',
      boot.tenant_id,
    );
    const t = await login(A, boot, username, 'a long password');
    await endsOnB(t.access_token, () => cli('user', 'disable', '--username', username));
  });

  it('every token of a client disabled by `platform client disable`', async () => {
    const clientId = `svc-${n++}`;
    const c = await cli('client', 'create', '--client-id', clientId, '--roles', 'search:read', '--tenant', boot.tenant_id);
    const t = await clientToken(A, boot, clientId, c.client_secret);
    await endsOnB(t.access_token, () => cli('client', 'disable', '--client-id', clientId));
  });

  it('the tokens of a session whose refresh token was used twice on replica A', async () => {
    const first = await login(A, boot);
    let rotated: Tokens | undefined;
    await endsOnB(first.access_token, async () => {
      rotated = await reuseRefreshToken(A, boot, first);
    });
    await waitFor(() => refusedEverywhere(B, rotated!.access_token, boot.tenant_id, 1), 'the rotated token refused by B');
  });

  it('a replica started after a revocation refuses the token from its first request', async () => {
    const t = await login(A, boot);
    await stopProcess(set.replicas[1].process.child);
    await revokeByRest(A, boot, t.refresh_token);
    await set.restart(1);
    for (const face of FACES) expect(await accepts(B, face, t.access_token, boot.tenant_id)).toBe(false);
  });
});
