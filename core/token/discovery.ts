import type { RealmInfo } from './service';

/** OpenID Connect discovery for a realm; endpoints carry `?realm=` since the spec's paths are realm-less. */
export function discoveryDocument(realm: RealmInfo, publicUrl: string) {
  const endpoint = (path: string) => `${publicUrl}/auth/api/v1/oauth/connect/${path}?realm=${realm.id}`;
  return {
    issuer: realm.issuer,
    token_endpoint: endpoint('token'),
    introspection_endpoint: endpoint('introspect'),
    revocation_endpoint: endpoint('revoke'),
    jwks_uri: realm.jwksUri,
    userinfo_endpoint: `${realm.issuer}/protocol/openid-connect/userinfo`,
    grant_types_supported: ['client_credentials', 'password', 'refresh_token'],
    scopes_supported: ['openid', 'profile', 'email'],
    response_types_supported: ['token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    userinfo_signing_alg_values_supported: ['none'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    introspection_endpoint_auth_methods_supported: ['none'],
    claims_supported: [
      'sub', 'iss', 'exp', 'iat', 'jti', 'typ', 'azp', 'sid', 'session_state', 'scope', 'realm_access',
      'preferred_username', 'email', 'email_verified', 'tenant_id', 'clientId', 'clientHost', 'clientAddress',
    ],
  };
}
