import type { JSONWebKeySet } from 'jose';

/** spec: "Token response (both flows)". Wire names are the spec's, hyphen included. */
export interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_expires_in: number;
  refresh_token: string;
  token_type: 'Bearer';
  'not-before-policy': number;
  session_state: string;
  scope: string;
}

/** Inputs of `POST /oauth/connect/token` (client credentials, or refresh with client auth). */
export interface ClientTokenRequest {
  realm?: string;
  client_id: string;
  client_secret: string;
  grant_type?: string;
  scopes?: string;
  refresh_token?: string;
}

/** Inputs of `POST /oauth/connect/user/login` (password, or refresh). */
export interface UserLoginRequest {
  realm?: string;
  username?: string;
  password?: string;
  grant_type?: string;
  scopes?: string;
  refresh_token?: string;
  client_id?: string;
  client_secret?: string;
}

export interface IntrospectRequest {
  realm: string;
  token?: string;
}

export interface RevokeRequest {
  realm?: string;
  token?: string;
}

/** Who is asking, as far as the transport can tell; it feeds the clientHost/clientAddress claims. */
export interface RequestMeta {
  clientAddress?: string;
}

/** spec: booleans in introspection are rendered as strings ("true"/"false"). */
export type BooleanWord = 'true' | 'false';

export interface ActiveIntrospection {
  exp: number;
  iat: number;
  jti: string;
  iss: string;
  sub: string;
  typ: string;
  azp: string;
  session_state: string;
  preferred_username: string;
  email_verified: BooleanWord;
  realm_access: { roles: string[] };
  scope: string;
  sid: string;
  clientId?: string;
  clientHost?: string;
  clientAddress?: string;
  client_id: string;
  username: string;
  tenant_id: string;
  active: 'true';
}

export type Introspection = ActiveIntrospection | { active: 'false' };

/** What the token service tells the public about a realm. */
export interface RealmInfo {
  id: string;
  name: string;
  enabled: boolean;
  issuer: string;
  jwksUri: string;
  accessTokenLifespan: number;
  refreshTokenLifespan: number;
}

/** The token service as every face (REST, GraphQL, remote client) sees it. */
export interface TokenService {
  issueForClient(req: ClientTokenRequest, meta?: RequestMeta): Promise<TokenResponse>;
  loginUser(req: UserLoginRequest, meta?: RequestMeta): Promise<TokenResponse>;
  introspect(req: IntrospectRequest): Promise<Introspection>;
  /** RFC 7009: ends the session a token belongs to. Unknown or invalid tokens are ignored. */
  revoke(req: RevokeRequest): Promise<void>;
  realm(id?: string): Promise<RealmInfo>;
  jwks(realm: string): Promise<JSONWebKeySet>;
  health(): Promise<{ msg: string }>;
}
