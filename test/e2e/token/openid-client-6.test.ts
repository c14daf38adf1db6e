import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { startInTemp, type Started } from '../shared/server';

/** Runs a scenario of openid-client-6.driver.mjs (openid-client 6 is ESM-only: its own node process). */
function drive<T = Record<string, any>>(input: Record<string, unknown>): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(__dirname, 'openid-client-6.driver.mjs'), JSON.stringify(input)],
      { timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`openid-client 6 driver failed: ${stderr || err.message}`));
        else resolve(JSON.parse(stdout) as T);
      },
    );
  });
}

/**
 * openid-client 6 (a strict, certified relying party), unchanged but for allowInsecureRequests (the
 * test server is plain HTTP), configured from the issuer URL alone, against a started platform:
 * discovery, client credentials, the password grant (the user grant the token service offers),
 * refresh, RFC 7662 introspection, userinfo and revocation; then jose against the JWKS with an
 * issuer and an audience, and the services' own audience checks.
 */
describe('openid-client 6 against a realm, from its issuer URL alone', () => {
  let server: Started;
  let boot: Record<string, string>;
  let issuer: string;
  let seen: Record<string, any>;

  beforeAll(async () => {
    server = await startInTemp('all');
    boot = server.bootstrap!.values;
    issuer = `${server.url}/auth/api/v1/realms/${boot.realm}`;
    seen = await drive({ scenario: 'flows', issuer, ...boot });
  }, 120_000);
  afterAll(() => server?.stop());

  it('discovers the issuer the tokens carry, RFC 7662 introspection with client authentication, and the audiences', () => {
    expect(seen.metadata).toMatchObject({
      issuer,
      introspection_endpoint: `${issuer}/protocol/openid-connect/token/introspect`,
      introspection_endpoint_auth_methods_supported: expect.arrayContaining(['client_secret_basic', 'client_secret_post']),
      audiences_supported: expect.arrayContaining(['account', 'search', 'models', 'chat']),
    });
    expect(decodeJwt(seen.clientCredentials.access_token).iss).toBe(issuer);
  });

  it('gets client-credentials tokens, and password-grant tokens it refreshes in the same session', () => {
    expect(seen.clientCredentials).toMatchObject({ token_type: 'bearer', access_token: expect.any(String) });
    expect(seen.password).toMatchObject({ token_type: 'bearer', refresh_token: expect.any(String) });
    expect(seen.refreshed.session_state).toBe(seen.password.session_state);
    expect(seen.refreshed.refresh_token).not.toBe(seen.password.refresh_token);
  });

  it('introspects with a boolean active and reads userinfo for the same subject', () => {
    expect(seen.introspection).toMatchObject({ active: true, username: boot.username, client_id: boot.client_id, token_type: 'Bearer' });
    expect(seen.userinfo).toMatchObject({ sub: seen.introspection.sub, preferred_username: boot.username, tenant_id: boot.tenant_id });
  });

  it('revokes: the token then introspects {"active": false}, and userinfo and refresh are refused', () => {
    expect(seen.revoked).toBe(true);
    expect(seen.introspectionAfterRevocation).toEqual({ active: false });
    expect(seen.userinfoAfterRevocation).toMatchObject({
      failed: true,
      code: 'OAUTH_WWW_AUTHENTICATE_CHALLENGE',
      status: 401,
      error: 'invalid_token',
    });
    expect(seen.refreshAfterRevocation).toMatchObject({ failed: true, status: 400, error: 'invalid_grant' });
  });

  it('is told invalid_client for a wrong secret', () => {
    expect(seen.wrongSecret).toMatchObject({ failed: true, status: 401, error: 'invalid_client' });
  });

  it('gets a token for one service (RFC 8707 resource): jose checks issuer and audience against the JWKS', async () => {
    const jwks = createRemoteJWKSet(new URL(seen.metadata.jwks_uri));
    const one = seen.forSearch.access_token as string;
    expect(decodeJwt(one).aud).toEqual(['search']);
    await expect(jwtVerify(one, jwks, { issuer, audience: 'search' })).resolves.toBeDefined();
    await expect(jwtVerify(one, jwks, { issuer, audience: 'models' })).rejects.toMatchObject({ claim: 'aud' });
    // Without a resource the token names every service, as before.
    await expect(jwtVerify(seen.clientCredentials.access_token, jwks, { issuer, audience: 'models' })).resolves.toBeDefined();
  });

  it('has the services check the audience too: the search token works at search and not at chat', async () => {
    const bearer = { authorization: `Bearer ${seen.forSearch.access_token}` };
    const search = await fetch(`${server.url}/cl/search/api/v1/search_lite?query_string=hello&top_k=1&re_ranked=false`, {
      headers: bearer,
    });
    expect(search.status).toBe(200);
    const chat = await fetch(`${server.url}/api/get_sources`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({
        request: { user_cred: { token: seen.forSearch.access_token, client: { tenant_id: boot.tenant_id } }, query: 'hello' },
        bot_details: {},
        chat_hist: [],
      }),
    });
    expect(chat.status).toBe(401);
  });

  it("at the default alias, is sent to the issuer's own document (307), which it accepts when given that URL", async () => {
    const alias = await drive({ scenario: 'alias', aliasIssuer: `${server.url}/auth/api/v1/realms/default`, ...boot });
    // openid-client 6 follows no redirect (redirect: 'manual'): it refuses the 307, whose Location names the document.
    expect(alias.atAlias).toMatchObject({ failed: true, status: 307, location: `${issuer}/.well-known/openid-configuration` });
    expect(alias.atAlias.body.detail).toContain(issuer);
    expect(alias.followed).toBe(issuer);
    expect(alias.fromIssuer).toBe(issuer);
  });
});
