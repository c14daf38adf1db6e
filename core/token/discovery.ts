import { GRANT_TYPES } from './grants';
import type { RealmInfo } from './service';

/** The two well-known documents served under a realm's issuer: OpenID Connect Discovery and RFC 8414. */
export const WELL_KNOWN = ['openid-configuration', 'oauth-authorization-server'] as const;
export type WellKnown = (typeof WELL_KNOWN)[number];

/**
 * OpenID Connect discovery (and RFC 8414 metadata) for a realm. Its endpoints are the realm's own,
 * at Keycloak's paths under the issuer: the spec's token path is realm-less and needs a client
 * secret (public clients have none), and its introspection, with booleans as words, is not what an
 * OAuth library expects (RFC 7662's is at the realm path).
 * `audiences_supported` (ours) lists the `aud` values a client may ask for with RFC 8707 `resource`.
 */
export function discoveryDocument(realm: RealmInfo) {
  const oidc = (path: string) => `${realm.issuer}/protocol/openid-connect/${path}`;
  const clientAuth = ['client_secret_basic', 'client_secret_post'];
  return {
    issuer: realm.issuer,
    authorization_endpoint: oidc('auth'),
    // The realm's own token endpoint: every grant, and public clients (no secret), which the spec's path cannot take.
    token_endpoint: oidc('token'),
    introspection_endpoint: oidc('token/introspect'),
    revocation_endpoint: oidc('revoke'),
    end_session_endpoint: oidc('logout'),
    jwks_uri: realm.jwksUri,
    userinfo_endpoint: oidc('userinfo'),
    grant_types_supported: [...GRANT_TYPES],
    scopes_supported: ['openid', 'profile', 'email'],
    response_types_supported: ['code'],
    response_modes_supported: ['query', 'fragment'],
    code_challenge_methods_supported: ['S256'],
    prompt_values_supported: ['none', 'login'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    userinfo_signing_alg_values_supported: ['none'],
    token_endpoint_auth_methods_supported: [...clientAuth, 'none'],
    introspection_endpoint_auth_methods_supported: clientAuth,
    revocation_endpoint_auth_methods_supported: ['none'],
    // RFC 9207: the authorization response names its issuer (`iss`), against mix-up attacks.
    authorization_response_iss_parameter_supported: true,
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    frontchannel_logout_supported: false,
    backchannel_logout_supported: false,
    audiences_supported: realm.audiences,
    claims_supported: [
      'sub',
      'iss',
      'aud',
      'exp',
      'iat',
      'jti',
      'typ',
      'azp',
      'sid',
      'session_state',
      'scope',
      'realm_access',
      'preferred_username',
      'email',
      'email_verified',
      'tenant_id',
      'auth_time',
      'nonce',
      'at_hash',
      'clientId',
      'clientHost',
      'clientAddress',
    ],
  };
}

/** Where a realm's well-known document is: under its issuer, which names the realm by id. */
export const wellKnownUrl = (realm: RealmInfo, doc: WellKnown): string => `${realm.issuer}/.well-known/${doc}`;

/**
 * A strict client checks that the document's `issuer` is the URL it discovered from (OIDC
 * Discovery §4.3, RFC 8414 §3.3), and tokens name the realm by id: a document asked for under
 * another name (the `default` alias) answers where the issuer's own is instead of itself.
 */
export function discoveryMoved(asked: string, realm: RealmInfo, doc: WellKnown) {
  if (asked === realm.id) return undefined;
  const location = wellKnownUrl(realm, doc);
  const detail = `'${asked.slice(0, 64)}' is not this realm's issuer: discover from ${realm.issuer} (its tokens' iss), whose document is ${location}`;
  return { location, body: { detail, error: 'invalid_request', error_description: detail, issuer: realm.issuer, location } };
}
