import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, run } from '../shared/server';
import { describeReplicas, startReplicas, type ReplicaSet } from '../../shared/replicas';

type Json = Record<string, unknown>;

/**
 * Two `platform start` processes on one PostgreSQL database and one Redis behave as one token
 * service: what one issues, revokes, counts or rotates, the other sees at once.
 */
describeReplicas('the token service on two replicas sharing PostgreSQL and Redis', () => {
  let set: ReplicaSet;
  let boot: Record<string, string>;
  let cliDir: string;
  const [A, B] = [0, 1];

  beforeAll(async () => {
    // A low bound per account, so a test reaches it from a few addresses.
    // Redis's commands get 5 s, not 300 ms: on a loaded machine a timed-out count fails open (docs/redis.md).
    set = await startReplicas({ count: 2, env: { LOCKOUT_ACCOUNT_THRESHOLD: '12', REDIS_COMMAND_TIMEOUT_MS: '5000' } });
    boot = set.credentials();
    cliDir = mkdtempSync(join(tmpdir(), 'token-replicas-cli-'));
  }, 180_000);
  afterAll(async () => {
    await set?.stop();
    if (cliDir) rmSync(cliDir, { recursive: true, force: true });
  });

  /** A POST as `from` (the replicas trust a proxy on loopback, so X-Forwarded-For names the caller). */
  const post = async (replica: number, path: string, form: Record<string, string>, from?: string) => {
    const res = await fetch(`${set.replicas[replica].url}/auth/api/v1/oauth/connect/${path}`, {
      method: 'POST',
      body: new URLSearchParams(form),
      headers: from ? { 'x-forwarded-for': from } : {},
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const login = (replica: number, username = boot.username, password = boot.password, from?: string) =>
    post(replica, 'user/login', { realm: boot.realm, username, password }, from);
  const introspect = async (replica: number, token: string) =>
    (await post(replica, 'introspect', { realm: boot.realm, token })).body.active;
  /** The `platform` command against the same database, as an operator runs it from any host. */
  const cli = async (args: string[], input?: string) => {
    const r = await run(process.execPath, [join(ROOT, 'dist', 'bin', 'platform.js'), ...args], {
      env: { ...set.env, PLATFORM_DATA_DIR: cliDir },
      input,
    });
    if (r.status !== 0) throw new Error(`platform ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Json;
  };

  it("gives both replicas the first one's default realm and demo accounts: the second's bootstrap.json has their ids, not their secrets", async () => {
    expect(boot.realm).toMatch(/^[0-9a-f-]{36}$/);
    const second = JSON.parse(readFileSync(join(set.replicas[B].dataDir, 'bootstrap.json'), 'utf8')) as Record<string, string>;
    expect(second).toEqual({
      realm: boot.realm,
      tenant_id: boot.tenant_id,
      client_id: boot.client_id,
      username: boot.username,
      admin_username: boot.admin_username,
    });
    expect((await post(B, 'token', { realm: second.realm, client_id: second.client_id, client_secret: boot.client_secret })).status).toBe(
      200,
    );
    const realms = (await cli(['realm', 'list'])) as unknown as Json[];
    expect(realms.filter((r) => r.default)).toEqual([expect.objectContaining({ realm: boot.realm, name: 'default' })]);
    expect(realms).toHaveLength(1);
  });

  it('answers a token issued by one replica as active on the other, with the same claims', async () => {
    const issued = await post(A, 'token', { realm: boot.realm, client_id: boot.client_id, client_secret: boot.client_secret });
    expect(issued.status).toBe(200);
    const token = issued.body.access_token as string;
    const [onA, onB] = [
      await post(A, 'introspect', { realm: boot.realm, token }),
      await post(B, 'introspect', { realm: boot.realm, token }),
    ];
    expect(onB.body).toMatchObject({ active: 'true', client_id: boot.client_id, tenant_id: boot.tenant_id });
    expect(onB.body).toEqual(onA.body);
    const userinfo = await fetch(`${set.replicas[B].url}/auth/api/v1/realms/${boot.realm}/protocol/openid-connect/userinfo`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(userinfo.status).toBe(200);
  });

  it('ends a session revoked on one replica, or by a logout from the command line, on both', async () => {
    const first = await login(A);
    expect(first.status).toBe(200);
    expect(await introspect(B, first.body.access_token as string)).toBe('true');
    expect((await post(A, 'revoke', { realm: boot.realm, token: first.body.refresh_token as string })).status).toBe(200);
    expect(await introspect(B, first.body.access_token as string)).toBe('false');
    expect(await introspect(A, first.body.access_token as string)).toBe('false');
    expect(
      (await post(B, 'user/login', { realm: boot.realm, grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string }))
        .status,
    ).toBe(400);

    const [onA, onB] = [await login(A), await login(B)];
    expect(await cli(['user', 'logout', '--username', boot.username])).toMatchObject({ sessions_ended: 2 });
    for (const replica of [A, B]) {
      for (const t of [onA, onB]) expect(await introspect(replica, t.body.access_token as string)).toBe('false');
    }
  });

  it("counts one address's failed logins on either replica toward one lock of that address, which both enforce; another address still signs in", async () => {
    await cli(['user', 'create', '--username', 'lockme', '--password', 'the right password']);
    const from = '198.51.100.70';
    for (let i = 0; i < 4; i++) expect((await login(i % 2 ? B : A, 'lockme', `wrong ${i}`, from)).status).toBe(401);
    expect((await login(A, 'lockme', 'the right password', from)).status).toBe(200);
    // A success starts the address's count again: five failures, spread over both replicas, lock the account for it.
    for (let i = 0; i < 5; i++) expect((await login(i % 2 ? A : B, 'lockme', `wrong ${i}`, from)).status).toBe(401);
    for (const replica of [A, B]) expect((await login(replica, 'lockme', 'the right password', from)).status).toBe(401);
    for (const replica of [A, B]) expect((await login(replica, 'lockme', 'the right password', '198.51.100.71')).status).toBe(200);
    const users = (await cli(['user', 'list'])) as unknown as Json[];
    expect(users.find((u) => u.username === 'lockme')).toMatchObject({ locked: false });
    // A dozen real scrypt hashes (N=2^17) and a command: seconds each on a loaded machine.
  }, 120_000);

  it('locks an account for every address once its failures from all addresses, on either replica, reach the bound; a new password lifts it', async () => {
    await cli(['user', 'create', '--username', 'lockall', '--password', 'the right password']);
    for (let i = 0; i < 12; i++)
      expect((await login(i % 2 ? B : A, 'lockall', `wrong ${i}`, `198.51.100.${80 + (i % 4)}`)).status).toBe(401);
    for (const replica of [A, B]) expect((await login(replica, 'lockall', 'the right password', '198.51.100.90')).status).toBe(401);
    expect(((await cli(['user', 'list'])) as unknown as Json[]).find((u) => u.username === 'lockall')).toMatchObject({ locked: true });
    await cli(['user', 'set-password', '--username', 'lockall', '--password', 'a new password']);
    for (const replica of [A, B]) expect((await login(replica, 'lockall', 'a new password', '198.51.100.90')).status).toBe(200);
  }, 120_000);

  it('rotates a refresh token once across replicas: a reuse on the other ends the session, and of parallel uses exactly one wins', async () => {
    const first = await login(A);
    const refresh = (replica: number, token: string) =>
      post(replica, 'user/login', { realm: boot.realm, grant_type: 'refresh_token', refresh_token: token });
    const rotated = await refresh(B, first.body.refresh_token as string);
    expect(rotated.status).toBe(200);
    expect(await introspect(A, rotated.body.access_token as string)).toBe('true');
    const reused = await refresh(A, first.body.refresh_token as string);
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    for (const replica of [A, B]) expect(await introspect(replica, rotated.body.access_token as string)).toBe('false');
    expect((await refresh(B, rotated.body.refresh_token as string)).status).toBe(400);

    const second = await login(B);
    const racing = await Promise.all(Array.from({ length: 10 }, (_, i) => refresh(i % 2 ? A : B, second.body.refresh_token as string)));
    expect(racing.filter((r) => r.status === 200)).toHaveLength(1);
    expect(racing.filter((r) => r.status === 400)).toHaveLength(9);
  });
});
