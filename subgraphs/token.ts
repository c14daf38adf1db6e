import DataLoader from 'dataloader';
import { DateTimeResolver } from 'graphql-scalars';
import type { Introspection, RealmInfo, TokenResponse, TokenService } from '../core/token/service';
import type { GraphContext } from './context';

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

/** Realms are looked up once per request however many introspections name them. */
const realmLoader = (token: TokenService) =>
  new DataLoader<string, RealmInfo | null>(async (ids) => Promise.all(ids.map((id) => token.realm(id).catch(() => null))));

type Ctx = GraphContext & { realms?: ReturnType<typeof realmLoader> };
const realms = (token: TokenService, ctx: Ctx) => (ctx.realms ??= realmLoader(token));

export const tokenResolvers = (token: TokenService) => ({
  DateTime: DateTimeResolver,
  Query: {
    realm: (_: unknown, args: { id?: string | null }) => token.realm(args.id ?? undefined),
    introspectToken: async (_: unknown, args: { token: string; realm: string }) =>
      introspection(await token.introspect({ token: args.token, realm: args.realm }), args.realm),
  },
  Mutation: {
    issueClientToken: async (_: unknown, { input }: { input: { realm?: string; clientId: string; clientSecret: string; scopes?: string } }, ctx: Ctx) =>
      pair(await token.issueForClient(
        { realm: input.realm ?? undefined, client_id: input.clientId, client_secret: input.clientSecret, scopes: input.scopes ?? undefined },
        { clientAddress: ctx.clientAddress },
      )),
    loginUser: async (_: unknown, { input }: { input: { realm?: string; username: string; password: string; scopes?: string; clientId?: string; clientSecret?: string } }, ctx: Ctx) =>
      pair(await token.loginUser(
        {
          realm: input.realm ?? undefined, username: input.username, password: input.password, scopes: input.scopes ?? undefined,
          client_id: input.clientId ?? undefined, client_secret: input.clientSecret ?? undefined,
        },
        { clientAddress: ctx.clientAddress },
      )),
    refreshToken: async (_: unknown, { input }: { input: { realm?: string; refreshToken: string; clientId?: string; clientSecret?: string; scopes?: string } }, ctx: Ctx) => {
      const common = { realm: input.realm ?? undefined, grant_type: 'refresh_token', refresh_token: input.refreshToken, scopes: input.scopes ?? undefined };
      const meta = { clientAddress: ctx.clientAddress };
      // A confidential client refreshes through the token endpoint's rules, anyone else through login's.
      return pair(input.clientId && input.clientSecret
        ? await token.issueForClient({ ...common, client_id: input.clientId, client_secret: input.clientSecret }, meta)
        : await token.loginUser({ ...common, client_id: input.clientId ?? undefined }, meta));
    },
    revokeToken: async (_: unknown, args: { token: string; realm?: string | null }) => {
      await token.revoke({ token: args.token, realm: args.realm ?? undefined });
      return true;
    },
  },
  Realm: {
    __resolveReference: (ref: { id: string }, ctx: Ctx) => realms(token, ctx).load(ref.id),
  },
  TokenIntrospection: {
    realm: (parent: { realm?: { id: string } }, _: unknown, ctx: Ctx) => (parent.realm ? realms(token, ctx).load(parent.realm.id) : null),
  },
});
