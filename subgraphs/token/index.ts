import DataLoader from 'dataloader';
import { DateTimeResolver, JSONObjectResolver } from 'graphql-scalars';
import { adminCredentials } from '../../core/shared/admin/access';
import type { TokenCore } from '../../core/token';
import * as In from '../../core/token/inputs';
import type { Introspection, RealmInfo, TokenResponse, TokenService } from '../../core/token/service';
import { parseArgs } from '../shared/args';
import { bearerCredentials } from '../../core/shared/auth/credentials';
import type { SubgraphEdge } from '../../edge/graphql/calls';
import type { GraphContext } from '../../edge/graphql/context';
import { accountResolvers } from './account';
import { tokenAdminResolvers } from './admin';
import { auditResolvers } from './audit';

const pair = (t: TokenResponse) => ({
  accessToken: t.access_token,
  expiresIn: t.expires_in,
  refreshExpiresIn: t.refresh_expires_in,
  refreshToken: t.refresh_token,
  tokenType: t.token_type,
  notBeforePolicy: t['not-before-policy'],
  sessionState: t.session_state,
  scope: t.scope,
});

/** `realm(id)`: the default realm without an id. Built once: a zod schema compiles on first use. */
const OPTIONAL_REALM = In.RealmRef.partial();

const introspection = (i: Introspection, realm: string) => {
  if (i.active !== 'true') return { active: false, roles: [] };
  return {
    active: true,
    subject: i.sub,
    tokenType: i.typ,
    clientId: i.client_id,
    username: i.username,
    tenantId: i.tenant_id,
    roles: i.realm_access.roles,
    scope: i.scope,
    sessionState: i.session_state,
    emailVerified: i.email_verified === 'true',
    issuer: i.iss,
    tokenId: i.jti,
    issuedAt: new Date(i.iat * 1000),
    expiresAt: new Date(i.exp * 1000),
    clientHost: i.clientHost ?? null,
    clientAddress: i.clientAddress ?? null,
    realm: { id: realm },
  };
};

/** Wire names of the inputs → GraphQL argument names, to locate validation issues. */
const NAMES = { client_id: 'clientId', client_secret: 'clientSecret', refresh_token: 'refreshToken' };

/** Realms are looked up once per request however many introspections name them. */
const realmLoader = (token: TokenService) =>
  new DataLoader<string, RealmInfo | null>(async (ids) => Promise.all(ids.map((id) => token.realm({ realm: id }).catch(() => null))));

type Ctx = GraphContext & { realms?: ReturnType<typeof realmLoader> };
const realms = (token: TokenService, ctx: Ctx) => (ctx.realms ??= realmLoader(token));

type Input = { input: Record<string, unknown> };

/**
 * The token service's subgraph. Its calls have no caller (OAuth clients authenticate inside the
 * request); `viewer` shows the bearer token's caller, whatever service the token was issued for,
 * and its person's own sessions (account.ts) to a token for the `account` audience.
 */
export const tokenResolvers = (token: TokenService, { callOf, callsFor }: SubgraphEdge<undefined>) => {
  const viewerOf = callsFor(bearerCredentials);
  const account = accountResolvers(token, callsFor(bearerCredentials, 'account'));
  return {
    DateTime: DateTimeResolver,
    JSONObject: JSONObjectResolver,
    Query: {
      realm: async (_: unknown, args: { id?: string | null }, ctx: Ctx) =>
        token.realm(parseArgs(OPTIONAL_REALM, { realm: args.id }, { realm: 'id' }), await callOf(ctx)),
      introspectToken: async (_: unknown, args: { token: string; realm: string }, ctx: Ctx) =>
        introspection(await token.introspect(parseArgs(In.IntrospectRequest, args), await callOf(ctx)), args.realm),
      viewer: async (_: unknown, _args: unknown, ctx: Ctx) => {
        const c = (await viewerOf(ctx)).caller;
        return {
          subject: c.subject,
          tenantId: c.tenantId,
          roles: c.roles,
          scopes: c.scopes,
          clientId: c.clientId,
          username: c.username,
          expiresAt: new Date(c.expiresAt * 1000),
          audience: c.audience,
          realm: { id: c.realm },
        };
      },
    },
    Mutation: {
      issueClientToken: async (_: unknown, { input }: Input, ctx: Ctx) => {
        const req = parseArgs(
          In.TokenRequest,
          { realm: input.realm, client_id: input.clientId, client_secret: input.clientSecret, scopes: input.scopes },
          NAMES,
          ['input'],
        );
        return pair(await token.issueForClient(req, await callOf(ctx)));
      },
      loginUser: async (_: unknown, { input }: Input, ctx: Ctx) => {
        const req = parseArgs(
          In.UserLoginRequest,
          {
            realm: input.realm,
            username: input.username,
            password: input.password,
            scopes: input.scopes,
            client_id: input.clientId,
            client_secret: input.clientSecret,
          },
          NAMES,
          ['input'],
        );
        return pair(await token.loginUser(req, await callOf(ctx)));
      },
      refreshToken: async (_: unknown, { input }: Input, ctx: Ctx) => {
        const req = parseArgs(
          In.RefreshRequest,
          {
            realm: input.realm,
            refresh_token: input.refreshToken,
            client_id: input.clientId,
            client_secret: input.clientSecret,
            scopes: input.scopes,
          },
          NAMES,
          ['input'],
        );
        return pair(await token.refresh(req, await callOf(ctx)));
      },
      revokeToken: async (_: unknown, args: { token: string; realm?: string | null }, ctx: Ctx) => {
        await token.revoke(parseArgs(In.RevokeRequest, args), await callOf(ctx));
        return true;
      },
      ...account.Mutation,
    },
    Realm: {
      __resolveReference: (ref: { id: string }, ctx: Ctx) => realms(token, ctx).load(ref.id),
    },
    TokenIntrospection: {
      realm: (parent: { realm?: { id: string } }, _: unknown, ctx: Ctx) => (parent.realm ? realms(token, ctx).load(parent.realm.id) : null),
    },
    Viewer: {
      realm: (parent: { realm: { id: string } }, _: unknown, ctx: Ctx) => realms(token, ctx).load(parent.realm.id),
      ...account.Viewer,
    },
  };
};

/**
 * The whole subgraph: the token service's fields, the admin fields (admin.ts) and the audit trail
 * (audit.ts), whose callers are administrators established from the bearer token.
 */
export function tokenSubgraphResolvers(core: Pick<TokenCore, 'service' | 'adminApi' | 'audit'>, edge: SubgraphEdge<undefined>) {
  const own = tokenResolvers(core.service, edge);
  const adminOf = edge.callsFor(adminCredentials);
  const admin = tokenAdminResolvers(core.adminApi, adminOf);
  const audit = auditResolvers(core.audit, adminOf);
  return { ...own, Query: { ...own.Query, ...admin.Query, ...audit.Query }, Mutation: { ...own.Mutation, ...admin.Mutation } };
}
