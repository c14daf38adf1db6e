import { UnsupportedGrantType } from '../errors';
import { authorizationCode } from './authorization-code';
import { clientCredentials } from './client-credentials';
import type { Grant } from './grant';
import { password } from './password';
import { refreshToken } from './refresh-token';

export type { Grant, GrantCall, GrantClient, GrantDeps, GrantRequest } from './grant';

/** Every grant type the token service speaks, by its `grant_type`: a new grant is a module and a line here. */
export const GRANTS = {
  client_credentials: clientCredentials,
  password,
  refresh_token: refreshToken,
  authorization_code: authorizationCode,
} as const satisfies Record<string, Grant>;

export type GrantType = keyof typeof GRANTS;

/** The token endpoint's grant types (discovery's `grant_types_supported`), in the map's order. */
export const GRANT_TYPES: readonly GrantType[] = Object.keys(GRANTS) as GrantType[];

/** The login endpoint's. */
export const LOGIN_GRANTS: readonly GrantType[] = ['password', 'refresh_token'];

/** The grant of `grantType` among those a door accepts (all by default), or unsupported_grant_type. */
export function grantFor(grantType: string, accepted: readonly GrantType[] = GRANT_TYPES): Grant {
  // `accepted` holds only the map's own keys, so `grantType` never reaches the prototype ('constructor', '__proto__').
  if (!(accepted as readonly string[]).includes(grantType)) throw new UnsupportedGrantType(grantType);
  return GRANTS[grantType as GrantType];
}
