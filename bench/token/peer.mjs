/**
 * The peer for `npm run bench`: node-oidc-provider set up as its documentation sets it up for the
 * client credentials grant with RS256 JWT access tokens, on 127.0.0.1:PORT. One confidential client
 * (BENCH_PEER_CLIENT_ID / BENCH_PEER_CLIENT_SECRET, client_secret_post), a fresh RS256 key per
 * start, the library's default in-memory adapter. Plain ESM (.mjs) because oidc-provider is
 * ESM-only; run from the source tree (bench/token/peer.mjs), tsc does not compile or copy it.
 */
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const clientId = process.env.BENCH_PEER_CLIENT_ID;
const clientSecret = process.env.BENCH_PEER_CLIENT_SECRET;
if (!Number.isInteger(port) || port <= 0 || !clientId || !clientSecret) {
  process.stderr.write('peer: PORT, BENCH_PEER_CLIENT_ID and BENCH_PEER_CLIENT_SECRET are required\n');
  process.exit(2);
}

// The API the tokens are for; every token request gets it by default, as the docs show.
const RESOURCE = 'urn:bench:api';
const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'bench-rs256' };

const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_post',
    },
  ],
  jwks: { keys: [jwk] },
  // Set explicitly so the provider does not warn about development-only defaults.
  cookies: { keys: ['bench-peer-cookie-key-not-secret'] },
  ttl: { ClientCredentials: 600 },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => RESOURCE,
      getResourceServerInfo: () => ({
        scope: 'api:read',
        audience: RESOURCE,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});

// Same server settings as the baseline and the platform: 127.0.0.1 only, long keep-alive.
const server = createServer(provider.callback());
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`peer oidc-provider listening on ${issuer}\n`));
