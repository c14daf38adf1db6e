/**
 * The peer for `npm run bench:sign-in`: node-oidc-provider set up, as its documentation shows, for
 * the authorization-code flow with PKCE: one public client (BENCH_PEER_CLIENT_ID, redirect URI
 * BENCH_PEER_REDIRECT_URI, no secret), RS256 ID tokens and RS256 JWT access tokens for one API (as
 * the platform's are: resource indicators, the way its docs make access tokens JWTs), the default
 * in-memory adapter, and an
 * interaction route that signs the bench's user in and grants `openid` at once (the bench measures
 * what follows: single sign-on, a code and its exchange, not a login form). Plain ESM: oidc-provider
 * is ESM-only; run from the source tree.
 */
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const clientId = process.env.BENCH_PEER_CLIENT_ID;
const redirectUri = process.env.BENCH_PEER_REDIRECT_URI;
if (!Number.isInteger(port) || port <= 0 || !clientId || !redirectUri) {
  process.stderr.write('sign-in peer: PORT, BENCH_PEER_CLIENT_ID and BENCH_PEER_REDIRECT_URI are required\n');
  process.exit(2);
}

const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'bench-rs256' };
const ACCOUNT = 'bench-user';
// The API the access tokens are for: a JWT signed RS256, as the platform's access tokens are.
const RESOURCE = 'urn:bench:api';

const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: [redirectUri],
    },
  ],
  jwks: { keys: [jwk] },
  cookies: { keys: ['bench-peer-cookie-key-not-secret'] },
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub, preferred_username: sub }) }),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  features: {
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => RESOURCE,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({ scope: 'api:read', audience: RESOURCE, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } }),
    },
  },
  pkce: { required: () => true },
});

const callback = provider.callback();
const server = createServer(async (req, res) => {
  if (!req.url?.startsWith('/interaction/')) return callback(req, res);
  try {
    // The person is the bench's user, and agrees to openid for this client: login and consent at once.
    const details = await provider.interactionDetails(req, res);
    const grant = new provider.Grant({ accountId: ACCOUNT, clientId: String(details.params.client_id) });
    grant.addOIDCScope('openid');
    grant.addResourceScope(RESOURCE, 'api:read');
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: ACCOUNT }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  } catch (err) {
    res.statusCode = 500;
    res.end(String(err));
  }
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`sign-in peer oidc-provider listening on ${issuer}\n`));
