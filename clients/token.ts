import type { JSONWebKeySet } from 'jose';
import type { Introspection, RealmInfo, TokenResponse, TokenService } from '../core/token/service';
import { httpClient, type HttpClientOptions } from './http';

type Params = Record<string, string | undefined>;

interface RealmWire {
  realm: string;
  name: string;
  enabled: boolean;
  issuer: string;
  jwks_uri: string;
  access_token_lifespan: number;
  refresh_token_lifespan: number;
}

/**
 * The token service over its documented REST paths, for subgraphs and services in front of a
 * remote deployment. Parameters go as a form body (so secrets stay out of URLs and logs).
 * `meta.clientAddress` cannot cross the hop: the remote service sees this process's address.
 */
export function tokenClient(opts: HttpClientOptions): TokenService {
  const request = httpClient(opts);
  const p = '/auth/api/v1';
  const enc = encodeURIComponent;
  return {
    issueForClient: (req) => request<TokenResponse>('POST', `${p}/oauth/connect/token`, { ...req } as Params),
    loginUser: (req) => request<TokenResponse>('POST', `${p}/oauth/connect/user/login`, { ...req } as Params),
    introspect: (req) => request<Introspection>('POST', `${p}/oauth/connect/introspect`, { ...req }),
    revoke: async (req) => void (await request('POST', `${p}/oauth/connect/revoke`, { ...req })),
    realm: async (id) => {
      const r = await request<RealmWire>('GET', `${p}/realms/${enc(id || 'default')}`);
      return {
        id: r.realm, name: r.name, enabled: r.enabled, issuer: r.issuer, jwksUri: r.jwks_uri,
        accessTokenLifespan: r.access_token_lifespan, refreshTokenLifespan: r.refresh_token_lifespan,
      } satisfies RealmInfo;
    },
    jwks: (realm) => request<JSONWebKeySet>('GET', `${p}/realms/${enc(realm)}/protocol/openid-connect/certs`),
    health: () => request<{ msg: string }>('GET', `${p}/healthz`),
  };
}
