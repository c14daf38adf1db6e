import { z } from 'zod';
import { param } from './params';

/** Wire schemas of the token service (spec: "Token service" under Resources and Endpoints). */
const realm = param.uuid().optional().describe('Identifier of the OAuth realm (UUID); the default realm when absent');
const grantType = param.string().optional();
const scopes = param.string().optional().describe('Space- or comma-separated scopes');

export const TokenRequest = z.object({
  realm,
  client_id: param.string().describe('Client identifier within the realm'),
  client_secret: param.string().describe('Secret of the client'),
  grant_type: grantType.describe('client_credentials (default) or refresh_token'),
  scopes,
  refresh_token: param.string().optional().describe('With grant_type=refresh_token'),
});

export const UserLoginRequest = z.object({
  realm,
  username: param.string().optional().describe('User name (required for grant_type=password)'),
  password: param.string().optional().describe('Password of the user (required for grant_type=password)'),
  grant_type: grantType.describe('password (default) or refresh_token'),
  scopes,
  refresh_token: param.string().optional().describe('With grant_type=refresh_token'),
  client_id: param.string().optional().describe('A client of the realm; the public client platform-login when absent'),
  client_secret: param.string().optional().describe('Secret of a confidential client_id'),
});

export const IntrospectRequest = z.object({
  token: param.string().optional().describe('The access token to introspect'),
  realm: param.id().describe('Identifier of the realm that issued the token'),
});

export const RevokeRequest = z.object({
  token: param.string().optional().describe('An access or refresh token; its session ends'),
  realm: param.string().optional(),
});

export const Msg = z.object({ msg: z.string() });

export const TokenResponse = z.object({
  access_token: z.string(),
  expires_in: z.int(),
  refresh_expires_in: z.int(),
  refresh_token: z.string(),
  token_type: z.literal('Bearer'),
  'not-before-policy': z.int(),
  session_state: z.uuid(),
  scope: z.string(),
});

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

export const TokenError = z.object({
  detail: z.string(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});

export const RealmResponse = z.object({
  realm: z.uuid(),
  name: z.string(),
  enabled: z.boolean(),
  issuer: z.string(),
  jwks_uri: z.string(),
  access_token_lifespan: z.int(),
  refresh_token_lifespan: z.int(),
});
