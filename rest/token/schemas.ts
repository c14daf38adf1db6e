import { z } from 'zod';

/**
 * Wire schemas of the token service's answers (spec: "Token service" under Resources). Its
 * inputs are the core's (core/token/inputs.ts), shared with the GraphQL face.
 */
export {
  ClientIntrospectRequest,
  IntrospectRequest,
  RealmRef,
  RealmTokenBody,
  RevocationsRequest,
  RevokeRequest,
  TokenRequest,
  UserinfoRequest,
  UserLoginRequest,
} from '../../core/token/inputs';
export { Msg } from '../shared/schemas';

export const TokenResponse = z.object({
  access_token: z.string(),
  expires_in: z.int(),
  refresh_expires_in: z.int(),
  refresh_token: z.string(),
  token_type: z.literal('Bearer'),
  'not-before-policy': z.int(),
  id_token: z.string().optional().describe('With the openid scope, after a person signed in (authorization code)'),
  session_state: z.uuid(),
  scope: z.string(),
});

export const WebOriginsResponse = z.object({ origins: z.array(z.string()) });

const word = z.enum(['true', 'false']);
export const IntrospectionResponse = z.object({
  exp: z.int().optional(),
  iat: z.int().optional(),
  jti: z.string().optional(),
  iss: z.string().optional(),
  sub: z.string().optional(),
  typ: z.string().optional(),
  azp: z.string().optional(),
  session_state: z.string().optional(),
  preferred_username: z.string().optional(),
  email_verified: word.optional(),
  realm_access: z.object({ roles: z.array(z.string()) }).optional(),
  scope: z.string().optional(),
  sid: z.string().optional(),
  clientId: z.string().optional(),
  clientHost: z.string().optional(),
  clientAddress: z.string().optional(),
  client_id: z.string().optional(),
  username: z.string().optional(),
  tenant_id: z.string().optional(),
  active: word,
});

/** RFC 7662 §2.2: real booleans; inactive is exactly `{"active": false}`. */
export const ClientIntrospectionResponse = IntrospectionResponse.extend({
  active: z.boolean(),
  email_verified: z.boolean().optional(),
  aud: z.array(z.string()).optional(),
  token_type: z.literal('Bearer').optional(),
});

export const TokenError = z.object({
  detail: z.string(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});

export const DiscoveryMoved = TokenError.extend({
  issuer: z.string().describe("The realm's issuer: the iss of its tokens"),
  location: z.string().describe('Its discovery document'),
});

export const RealmResponse = z.object({
  realm: z.uuid(),
  name: z.string(),
  enabled: z.boolean(),
  issuer: z.string(),
  jwks_uri: z.string(),
  access_token_lifespan: z.int(),
  refresh_token_lifespan: z.int(),
  audiences: z.array(z.string()).describe('The `aud` values its access tokens may carry (RFC 8707 `resource` picks some)'),
  public_key: z.string().describe("Keycloak's field: the active signing key (RSA, SubjectPublicKeyInfo DER, base64)"),
  'token-service': z.string().describe("Keycloak's field: the realm's OpenID Connect endpoints' base"),
  'account-service': z.string(),
  'tokens-not-before': z.int(),
});

export const UserInfoResponse = z.object({
  sub: z.string(),
  preferred_username: z.string(),
  email: z.string().optional(),
  email_verified: z.boolean(),
  tenant_id: z.string(),
  realm_access: z.object({ roles: z.array(z.string()) }),
});

/** The revoked-sessions list (core/token/service.ts RevocationsPage). */
export const RevocationsResponse = z.object({
  feed: z.string().describe("This list's id: send it back as `feed` with `last` as `after`"),
  last: z.int().describe("The last entry's number"),
  full: z.boolean().describe('true: the whole list (replace what you hold); false: only the entries after `after`'),
  entries: z.array(
    z.object({
      realm: z.string(),
      kind: z.enum(['session', 'user', 'client', 'realm']),
      subject: z
        .string()
        .describe(
          "session: its id (sid); user, client: the SHA-256 (base64url, 22 characters) of the user's id or the client's id; realm: its id",
        ),
      up_to: z.int().describe('user, client, realm: the sessions started up to this instant (epoch ms) are ended'),
      until: z.int().describe('Epoch ms past which no access token it ends is valid'),
    }),
  ),
});
