import { Forbidden, Unauthenticated } from '../errors';

/** The authenticated caller behind `Authorization: Bearer`, as every service and face sees it. */
export interface Caller {
  realm: string;
  subject: string;
  tenantId: string;
  roles: string[];
  scopes: string[];
  clientId: string;
  username: string;
  sessionId: string;
  tokenId: string;
  /** Epoch seconds. */
  expiresAt: number;
  /** The services the token was issued for (RFC 9068 `aud`). */
  audience: string[];
  /** The access token itself, so a remote call can be made as the same caller. Never log it. */
  bearer: string;
}

/** What a route or resolver needs of its caller. */
export interface Requirement {
  /** The service's audience; the token must name it. */
  audience?: string;
  /** Every one of these roles (realm roles). */
  roles?: readonly string[];
}

/**
 * RFC 6750 §3 errors: the transport turns `bearerError` into `WWW-Authenticate: Bearer ...`
 * (no error attribute when credentials are simply missing).
 */
export class MissingCredentials extends Unauthenticated {
  readonly bearerError = null;
  constructor() {
    super('Not authenticated');
  }
}

export class InvalidToken extends Unauthenticated {
  readonly bearerError = 'invalid_token';
  constructor(why: string) {
    super(`Invalid token: ${why}`, { code: 'invalid_token' });
  }
}

export class InsufficientRole extends Forbidden {
  readonly bearerError = 'insufficient_scope';
  constructor(readonly required: readonly string[]) {
    super(`Missing role${required.length > 1 ? 's' : ''} ${required.map((r) => `'${r}'`).join(', ')}`, { code: 'insufficient_scope' });
  }
}

export type BearerError = MissingCredentials | InvalidToken | InsufficientRole;

export const isBearerError = (e: unknown): e is BearerError =>
  e instanceof MissingCredentials || e instanceof InvalidToken || e instanceof InsufficientRole;

/** The token from an `Authorization` header value, or undefined when there is none or it is malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  const [scheme, token, extra] = (header ?? '').trim().split(/\s+/);
  if (scheme?.toLowerCase() !== 'bearer' || !token || extra !== undefined) return undefined;
  return token;
}

/** Throws unless `caller` meets `need`: a token for another service is invalid, a missing role forbidden. */
export function authorize(caller: Caller, need: Requirement): Caller {
  if (need.audience && !caller.audience.includes(need.audience)) throw new InvalidToken('not issued for this service');
  const missing = (need.roles ?? []).filter((r) => !caller.roles.includes(r));
  if (missing.length) throw new InsufficientRole(missing);
  return caller;
}
