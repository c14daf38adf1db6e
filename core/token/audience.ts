import { InvalidTarget } from './errors';
import { narrow } from './scopes';

/**
 * RFC 8707 resource indicators (and the `audience` parameter Keycloak and Auth0 use): a client may
 * ask that an access token name only some of the platform's services in `aud`, so each resource
 * server can check that a token was meant for it. Values are the services' audiences (`search`,
 * `models`, `chat`, `account`), as they appear in `aud`; nothing asked means every service
 * (RFC 9068's default here). A refresh grant may narrow what the session was granted, never widen it.
 */
export const parseTargets = (...raw: (readonly string[] | undefined)[]): string[] => [
  ...new Set(
    raw
      .flatMap((list) => list ?? [])
      .flatMap((v) => v.split(/[\s,]+/))
      .filter(Boolean),
  ),
];

/** The audiences asked for when each is within `granted` (else invalid_target), or all of `granted`. */
export const grantAudience = (granted: readonly string[], asked: readonly string[]): string[] =>
  narrow(granted, asked, (refused) => new InvalidTarget(refused));
