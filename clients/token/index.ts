import type { JSONWebKeySet } from 'jose';
import type { Ctx } from '../../core/shared/context';
import type {
  AccountSessionPage,
  ClientIntrospection,
  Introspection,
  RealmInfo,
  RevocationsPage,
  TokenResponse,
  TokenService,
  UserInfo,
} from '../../core/token/service';
import { NotFound } from '../../core/shared/errors';
import { callOptions, httpClient, type HttpClientOptions } from '../shared/http';

type Params = Record<string, string | undefined>;

interface RealmWire {
  realm: string;
  name: string;
  enabled: boolean;
  issuer: string;
  jwks_uri: string;
  access_token_lifespan: number;
  refresh_token_lifespan: number;
  audiences?: string[];
  public_key: string;
}

/**
 * The token service over its documented REST paths, for subgraphs and services in front of a
 * remote deployment. Parameters go as a form body (so secrets stay out of URLs and logs).
 * `ctx.clientAddress` cannot cross the hop: the remote service sees this process's address.
 */
export function tokenClient(opts: HttpClientOptions): TokenService {
  const { request } = httpClient(opts);
  const form = (fields: object, ctx?: Ctx) => ({ form: { ...fields } as Params, ...callOptions(ctx) });
  const p = '/auth/api/v1';
  const realmPath = (realm: string | undefined) => `${p}/realms/${encodeURIComponent(realm || 'default')}`;
  return {
    issueForClient: (req, ctx) => request<TokenResponse>('POST', `${p}/oauth/connect/token`, form(req, ctx)),
    loginUser: (req, ctx) => request<TokenResponse>('POST', `${p}/oauth/connect/user/login`, form(req, ctx)),
    // The login endpoint refreshes for any client, authenticating it only when it is confidential.
    refresh: (req, ctx) =>
      request<TokenResponse>('POST', `${p}/oauth/connect/user/login`, form({ ...req, grant_type: 'refresh_token' }, ctx)),
    introspect: (req, ctx) => request<Introspection>('POST', `${p}/oauth/connect/introspect`, form(req, ctx)),
    introspectForClient: ({ realm, ...req }, ctx) =>
      request<ClientIntrospection>('POST', `${realmPath(realm)}/protocol/openid-connect/token/introspect`, form(req, ctx)),
    revoke: async (req, ctx) => void (await request('POST', `${p}/oauth/connect/revoke`, form(req, ctx))),
    revocations: ({ feed, after }, ctx) =>
      request<RevocationsPage>('GET', `${p}/revocations`, {
        ...callOptions(ctx),
        query: { feed, after: after === undefined ? undefined : String(after) },
      }),
    userinfo: ({ realm, authorization }, ctx) =>
      request<UserInfo>('GET', `${realmPath(realm)}/protocol/openid-connect/userinfo`, {
        ...callOptions(ctx),
        headers: authorization ? { authorization } : undefined,
      }),
    // A person's own sessions: the caller's bearer token travels on (callOptions), as it came.
    accountSessions: ({ limit, cursor }, ctx) =>
      request<AccountSessionPage>('GET', `${p}/account/sessions`, { ...callOptions(ctx), query: { limit, cursor } }),
    endAccountSession: ({ id }, ctx) => request('DELETE', `${p}/account/sessions/${encodeURIComponent(id)}`, callOptions(ctx)),
    endAccountSessions: (_req, ctx) => request('DELETE', `${p}/account/sessions`, callOptions(ctx)),
    realm: async (req, ctx) => {
      const r = await request<RealmWire>('GET', realmPath(req?.realm), callOptions(ctx));
      return {
        id: r.realm,
        name: r.name,
        enabled: r.enabled,
        issuer: r.issuer,
        jwksUri: r.jwks_uri,
        accessTokenLifespan: r.access_token_lifespan,
        refreshTokenLifespan: r.refresh_token_lifespan,
        audiences: r.audiences ?? [],
        publicKey: r.public_key,
      } satisfies RealmInfo;
    },
    jwks: (req, ctx) => request<JSONWebKeySet>('GET', `${realmPath(req.realm)}/protocol/openid-connect/certs`, callOptions(ctx)),
    tokenAtRealm: ({ realm, ...req }, ctx) =>
      request<TokenResponse>('POST', `${realmPath(realm)}/protocol/openid-connect/token`, form(req, ctx)),
    // A browser talks to the token service's own pages; nothing relays them.
    authorize: () => Promise.reject(new NotFound('the authorization endpoint is served by the token service to browsers')),
    submitLogin: () => Promise.reject(new NotFound('the login form is served by the token service to browsers')),
    logout: () => Promise.reject(new NotFound('logout is served by the token service to browsers')),
    webOrigins: async () => (await request<{ origins: string[] }>('GET', `${p}/web-origins`, callOptions())).origins,
    health: (_req, ctx) => request<{ msg: string }>('GET', `${p}/healthz`, callOptions(ctx)),
  };
}
