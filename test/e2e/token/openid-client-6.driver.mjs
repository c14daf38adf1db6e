// Drives openid-client 6 (ESM-only, so it runs in its own node process; jest cannot load it) against
// a started platform. Reads the scenario and its inputs as JSON from argv[2]; prints what it saw as JSON.
// Nothing here knows the platform's paths beyond the issuer URL: the library finds the rest.
import * as client from 'openid-client-6';

const input = JSON.parse(process.argv[2]);
const insecure = { execute: [client.allowInsecureRequests] };

/** What a failure looked like to the caller: the library's error and, for an HTTP answer, its status, Location and body. */
async function failure(promise) {
  try {
    await promise;
    return { failed: false };
  } catch (err) {
    const cause = err.cause;
    const response = cause instanceof Response ? cause : undefined;
    // A WWW-Authenticate challenge (RFC 6750 §3) carries its error among the challenge's parameters.
    const challenged = Array.isArray(cause) ? cause[0]?.parameters?.error : undefined;
    return {
      failed: true,
      name: err.name,
      code: err.code,
      error: err.error ?? challenged,
      message: err.message,
      status: err.status ?? response?.status,
      location: response?.headers.get('location') ?? undefined,
      body: response ? await response.json().catch(() => undefined) : undefined,
    };
  }
}

async function flows({ issuer, client_id, client_secret, username, password }) {
  const config = await client.discovery(new URL(issuer), client_id, client_secret, undefined, insecure);
  const out = { metadata: config.serverMetadata() };
  out.clientCredentials = await client.clientCredentialsGrant(config);
  out.forSearch = await client.clientCredentialsGrant(config, { resource: 'search' });
  out.password = await client.genericGrantRequest(config, 'password', { username, password });
  out.refreshed = await client.refreshTokenGrant(config, out.password.refresh_token);
  out.introspection = await client.tokenIntrospection(config, out.refreshed.access_token);
  out.userinfo = await client.fetchUserInfo(config, out.refreshed.access_token, out.introspection.sub);
  out.revoked = await client.tokenRevocation(config, out.refreshed.refresh_token).then(() => true);
  out.introspectionAfterRevocation = await client.tokenIntrospection(config, out.refreshed.access_token);
  out.userinfoAfterRevocation = await failure(client.fetchUserInfo(config, out.refreshed.access_token, out.introspection.sub));
  out.refreshAfterRevocation = await failure(client.refreshTokenGrant(config, out.refreshed.refresh_token));
  const wrong = await client.discovery(new URL(issuer), client_id, 'not the secret', undefined, insecure);
  out.wrongSecret = await failure(client.clientCredentialsGrant(wrong));
  return out;
}

async function alias({ aliasIssuer, client_id, client_secret }) {
  const atAlias = await failure(client.discovery(new URL(aliasIssuer), client_id, client_secret, undefined, insecure));
  const out = { atAlias };
  if (atAlias.location) {
    // The URL the 307 names: the issuer's own document, which a client may be given directly.
    const config = await client.discovery(new URL(atAlias.location), client_id, client_secret, undefined, insecure);
    out.followed = config.serverMetadata().issuer;
    out.fromIssuer = (await client.discovery(new URL(out.followed), client_id, client_secret, undefined, insecure)).serverMetadata().issuer;
  }
  return out;
}

const scenarios = { flows, alias };
process.stdout.write(JSON.stringify(await scenarios[input.scenario](input)));
