// openid-client 6 against the token service: discovery at the realm's issuer, the client credentials grant
// for one audience, RFC 7662 introspection; then jose checks the token offline (issuer and audience).
// In this repository openid-client 6 is installed as `openid-client-6`; in your project, import 'openid-client'.
// Run: eval "$(npm run -s platform -- credentials --shell)"; node examples/openid-client.mjs
import * as client from 'openid-client-6';
import { createRemoteJWKSet, jwtVerify } from 'jose';

const BASE = process.env.BASE ?? 'http://127.0.0.1:8080';
// The issuer is the `iss` of the realm's tokens (`realms/default` answers 307 to it).
const issuer = new URL(`${BASE}/auth/api/v1/realms/${process.env.REALM}`);
const config = await client.discovery(
  issuer,
  process.env.CLIENT_ID,
  process.env.CLIENT_SECRET,
  undefined,
  issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : undefined,
);

// `resource` (RFC 8707) makes the token's `aud` name only the search service.
const tokens = await client.clientCredentialsGrant(config, { resource: 'search' });
const info = await client.tokenIntrospection(config, tokens.access_token);
console.log('introspection:', info.active, JSON.stringify(info.aud), info.client_id);

const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri));
const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: issuer.href, audience: 'search' });
console.log('verified for search:', payload.azp ?? payload.client_id);
await jwtVerify(tokens.access_token, jwks, { issuer: issuer.href, audience: 'models' }).then(
  () => console.log('verified for models: yes'),
  (err) => console.log('verified for models: no,', err.code),
);
