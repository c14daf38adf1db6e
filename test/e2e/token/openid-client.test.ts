import { Issuer, type BaseClient } from 'openid-client';
import { startInTemp, type Started } from '../shared/server';

/**
 * A certified OpenID relying-party library (openid-client 5), configured from the discovery
 * document alone, drives every flow a standard OAuth client uses. Nothing here knows our paths.
 */
describe('openid-client against a realm, from its discovery document alone', () => {
  let server: Started;
  let client: BaseClient;
  let boot: Record<string, string>;

  beforeAll(async () => {
    server = await startInTemp('all');
    boot = server.bootstrap!.values;
    const issuer = await Issuer.discover(`${server.url}/auth/api/v1/realms/${boot.realm}/.well-known/openid-configuration`);
    client = new issuer.Client({
      client_id: boot.client_id,
      client_secret: boot.client_secret,
      token_endpoint_auth_method: 'client_secret_basic',
    });
  });
  afterAll(() => server?.stop());

  it('discovers the issuer the tokens carry and every endpoint it needs', () => {
    const m = client.issuer.metadata;
    expect(m.issuer).toBe(`${server.url}/auth/api/v1/realms/${boot.realm}`);
    for (const e of ['token_endpoint', 'introspection_endpoint', 'revocation_endpoint', 'userinfo_endpoint', 'jwks_uri'])
      expect(m[e]).toMatch(/^http:/);
  });

  it('gets client-credentials tokens', async () => {
    const set = await client.grant({ grant_type: 'client_credentials' });
    expect(set.token_type?.toLowerCase()).toBe('bearer');
    expect(set.access_token).toBeTruthy();
    expect(set.claims === undefined || typeof set.claims === 'function').toBe(true);
  });

  it('gets password-grant tokens at the discovered token endpoint, refreshes, introspects, reads userinfo and revokes', async () => {
    const pw = await client.grant({ grant_type: 'password', username: boot.username, password: boot.password });
    expect(pw.refresh_token).toBeTruthy();

    const refreshed = await client.refresh(pw.refresh_token!);
    expect(refreshed.session_state).toBe(pw.session_state);

    // The discovered introspection_endpoint is RFC 7662's (boolean active); the spec's path keeps its words.
    const seen = await client.introspect(refreshed.access_token!);
    expect(seen).toMatchObject({ active: true, username: boot.username, client_id: boot.client_id });

    const me = await client.userinfo(refreshed.access_token!);
    expect(me).toMatchObject({ preferred_username: boot.username, tenant_id: boot.tenant_id, email_verified: false });
    expect(me.sub).toBeTruthy();

    await client.revoke(refreshed.refresh_token!);
    expect(await client.introspect(refreshed.access_token!)).toEqual({ active: false });
    await expect(client.userinfo(refreshed.access_token!)).rejects.toMatchObject({ error: 'invalid_token' });
  });

  it('ends the session when a used refresh token comes back (reuse detection)', async () => {
    const pw = await client.grant({ grant_type: 'password', username: boot.username, password: boot.password });
    const refreshed = await client.refresh(pw.refresh_token!);
    await expect(client.refresh(pw.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await client.introspect(refreshed.access_token!)).toEqual({ active: false });
  });

  it('is told invalid_client for a wrong secret, in the OAuth error format', async () => {
    const wrong = new client.issuer.Client({
      client_id: boot.client_id,
      client_secret: 'not the secret',
      token_endpoint_auth_method: 'client_secret_basic',
    });
    await expect(wrong.grant({ grant_type: 'client_credentials' })).rejects.toMatchObject({ error: 'invalid_client' });
  });
});
