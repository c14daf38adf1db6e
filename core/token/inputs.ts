import { z } from 'zod';
import { MAX_PAGE } from '../shared/admin/paging';
import { param } from '../shared/params';

/**
 * The token service's inputs, in the spec's wire names. Every face validates with these schemas
 * (REST from query, form or JSON; GraphQL from its arguments), so a bad input is refused for the
 * same reason everywhere. The rules of each grant type live here, not in a transport.
 */
const realm = param.uuid().optional().describe('Identifier of the OAuth realm (UUID); the default realm when absent');
const scopes = param.string().optional().describe('Space- or comma-separated scopes');
const refreshToken = param.string().optional().describe('With grant_type=refresh_token');
/** RFC 8707 `resource` and the `audience` parameter: both name services' audiences (repeated, or space-separated). */
const targets = {
  resource: param
    .array()
    .optional()
    .describe('RFC 8707: the audience (a service: search, models, chat, account) the access token is for; repeat for several'),
  audience: param.array().optional().describe('Same as resource (the name Keycloak and Auth0 use)'),
};

/** The authorization-code grant's parameters (RFC 6749 §4.1.3, RFC 7636 §4.5). */
const codeParams = {
  code: param.string().optional().describe('With grant_type=authorization_code: the code the authorization endpoint gave'),
  redirect_uri: param.string().optional().describe('With grant_type=authorization_code: the redirect_uri of the authorization request'),
  code_verifier: param.string().optional().describe('With grant_type=authorization_code: the PKCE verifier (S256)'),
};

type Grants = Record<string, readonly string[]>;
const REQUIRED: Grants = {
  refresh_token: ['refresh_token'],
  password: ['username', 'password'],
  authorization_code: ['code', 'redirect_uri'],
};

/** Adds "Field required" for the fields `grant_type` (or its default) needs, reported with any other issue. */
const requireFor = (grants: Grants, fallback: string) =>
  z.superRefine<Record<string, unknown>>(
    (v, ctx) => {
      if (typeof v !== 'object' || v === null) return;
      const grant = typeof v.grant_type === 'string' && v.grant_type ? v.grant_type : fallback;
      for (const field of grants[grant] ?? []) {
        if (v[field] === undefined) {
          ctx.addIssue({ code: 'custom', path: [field], input: undefined, message: 'Field required', params: { type: 'missing' } });
        }
      }
    },
    { when: () => true },
  );

export const TokenRequest = z
  .object({
    realm,
    client_id: param.string().describe('Client identifier within the realm'),
    client_secret: param.string().describe('Secret of the client'),
    grant_type: param.string().optional().describe('client_credentials (default), password or refresh_token'),
    scopes,
    refresh_token: refreshToken,
    username: param.string().optional().describe('With grant_type=password'),
    password: param.string().optional().describe('With grant_type=password'),
    ...codeParams,
    ...targets,
  })
  .check(requireFor(REQUIRED, 'client_credentials'));

/**
 * A realm's own token endpoint (Keycloak's layout): the token endpoint's parameters, the realm in
 * the path, `grant_type` required, the client's secret only for a confidential client.
 */
const realmTokenFields = {
  grant_type: param.string().describe('authorization_code, refresh_token, password or client_credentials'),
  client_id: param.string().optional().describe('The client (or HTTP Basic); required'),
  client_secret: param.string().optional().describe("A confidential client's secret (or HTTP Basic); none for a public client"),
  scopes,
  scope: param.string().optional().describe('Same as scopes (the OAuth name)'),
  refresh_token: refreshToken,
  username: param.string().optional().describe('With grant_type=password'),
  password: param.string().optional().describe('With grant_type=password'),
  ...codeParams,
  ...targets,
};
/** The realm token endpoint's parameters (the realm is in its path). */
export const RealmTokenBody = z.object(realmTokenFields).check(requireFor(REQUIRED, 'client_credentials'));
export const RealmTokenRequest = z
  .object({ realm: param.id().describe('Realm id, name, or `default`'), ...realmTokenFields })
  .check(requireFor(REQUIRED, 'client_credentials'));

export const UserLoginRequest = z
  .object({
    realm,
    username: param.string().optional().describe('User name (required for grant_type=password)'),
    password: param.string().optional().describe('Password of the user (required for grant_type=password)'),
    grant_type: param.string().optional().describe('password (default) or refresh_token'),
    scopes,
    refresh_token: refreshToken,
    client_id: param.string().optional().describe('A client of the realm; the public client platform-login when absent'),
    client_secret: param.string().optional().describe('Secret of a confidential client_id'),
    ...targets,
  })
  .check(requireFor({ refresh_token: ['refresh_token'], password: ['username', 'password'] }, 'password'));

export const RefreshRequest = z.object({
  realm,
  refresh_token: param.string().describe('The refresh token; it is rotated (each works once)'),
  client_id: param.string().optional().describe('The client the token was issued to (needed with its secret when confidential)'),
  client_secret: param.string().optional(),
  scopes: scopes.describe('A subset of the session scopes'),
  ...targets,
});

export const IntrospectRequest = z.object({
  token: param.string().optional().describe('The access token to introspect'),
  realm: param.id().describe('Identifier of the realm that issued the token'),
});

/** RFC 7662 §2.1, at a realm's own path: the resource server authenticates as a client of the realm. */
export const ClientIntrospectRequest = z.object({
  realm: param.id().describe('Realm id, or `default`'),
  token: param.string().describe('The token to introspect'),
  token_type_hint: param.string().optional().describe('access_token or refresh_token (a hint; only access tokens read active)'),
  client_id: param.string().describe("The resource server's client (or HTTP Basic)"),
  client_secret: param.string().describe('Its secret (or HTTP Basic)'),
});

export const RevokeRequest = z.object({
  token: param.string().optional().describe('An access or refresh token; its session ends'),
  realm: param.string().optional(),
});

/** A reader of the revoked-sessions list: where it stands (both absent: the whole list). */
export const RevocationsRequest = z.object({
  feed: param
    .string()
    .pipe(z.string().regex(/^[0-9a-f]{1,64}$/, 'the `feed` of an earlier answer'))
    .optional()
    .describe('The `feed` of the last answer read (another feed, or none: the whole list)'),
  after: param.int().pipe(z.int().min(0)).optional().describe('The `last` of the last answer read: only entries after it'),
});

/** A realm named in a path: its id, or `default` for the default realm. */
export const RealmRef = z.object({ realm: param.id().describe('Realm id, or `default`') });

export const UserinfoRequest = RealmRef.extend({
  authorization: param.string().optional().describe('Bearer access token of the user'),
});

/** A page of the caller's own sessions (the admin API's paging: `limit`, `cursor`). */
export const AccountSessionsRequest = z.object({
  limit: param.int().pipe(z.int().min(1).max(MAX_PAGE)).optional().describe(`Sessions per page, 1-${MAX_PAGE} (default 50)`),
  cursor: param.string().pipe(z.string().max(512)).optional().describe("The previous page's `next_cursor`"),
});

/** One of the caller's own sessions. */
export const AccountSessionRef = z.object({ id: param.string().pipe(z.string().min(1).max(128)).describe('The session id') });

export type ClientTokenRequest = z.output<typeof TokenRequest>;
export type RealmTokenRequest = z.output<typeof RealmTokenRequest>;
export type UserLoginRequest = z.output<typeof UserLoginRequest>;
export type RefreshRequest = z.output<typeof RefreshRequest>;
export type IntrospectRequest = z.output<typeof IntrospectRequest>;
export type ClientIntrospectRequest = z.output<typeof ClientIntrospectRequest>;
export type RevokeRequest = z.output<typeof RevokeRequest>;
export type RealmRef = z.output<typeof RealmRef>;
export type RevocationsRequest = z.output<typeof RevocationsRequest>;
export type UserinfoRequest = z.output<typeof UserinfoRequest>;
export type AccountSessionsRequest = z.output<typeof AccountSessionsRequest>;
export type AccountSessionRef = z.output<typeof AccountSessionRef>;
