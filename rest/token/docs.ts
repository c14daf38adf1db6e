import { GRANT_TYPES, LOGIN_GRANTS } from '../../core/token/grants';
import type { OperationDocs, ServiceDocs } from '../shared/routes';

/**
 * The token service in OpenAPI: credentials are its endpoints' parameters (client id and secret,
 * username and password, the token to introspect), so only userinfo has a security scheme (bearer).
 */
export const tokenServiceDocs: ServiceDocs = {
  description:
    'To try it: the first start made a demo client (`client_id`, `client_secret`) and a demo user (`username`, `password`) ' +
    'in the default realm, and an LM key (`api_key`) for the model gateway, and keeps them in `bootstrap.json` in the data directory ' +
    '(`data/bootstrap.json` by default, `PLATFORM_DATA_DIR` otherwise); from the project folder, `npm run -s platform -- credentials` prints them. ' +
    'Credentials are parameters here: `client_id` and `client_secret` (or HTTP Basic) at the token endpoint, ' +
    '`username` and `password` at the login endpoint, the token itself at introspection and revocation. ' +
    "Leave `realm` empty for the default realm. The access token you get is what **Authorize** takes on the other services' pages " +
    "(and on userinfo below). OAuth and OpenID libraries: discover from the realm's issuer " +
    "(`/auth/api/v1/realms/{realm id}`, the `iss` of its tokens); its introspection_endpoint is RFC 7662's (boolean `active`, client authentication), " +
    'and `resource` (RFC 8707) asks for a token whose `aud` names only that service.',
};

const grant = (values: readonly string[], fallback: string) => ({
  grant_type: { schema: { enum: [...values], default: fallback }, description: `${values.join(', ')} (default ${fallback})` },
});

const defaultRealm = { realm: { example: 'default' } };

export const tokenDocs: Record<'token' | 'login' | 'realm' | 'userinfo', OperationDocs> = {
  token: { params: grant(GRANT_TYPES, 'client_credentials') },
  login: { params: grant(LOGIN_GRANTS, 'password') },
  realm: { params: defaultRealm },
  userinfo: { params: defaultRealm, security: [{ bearerAuth: [] }] },
};
