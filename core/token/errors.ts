import { BadRequest, NotFound, Unauthenticated } from '../shared/errors';

/**
 * Token errors carry their RFC 6749 §5.2 `error` code in `code`, so OAuth client libraries
 * understand the REST answers.
 */
export class RealmNotFound extends NotFound {
  constructor() {
    super('Realm not found', { code: 'realm_not_found' });
  }
}

/** One message for unknown client, wrong secret, unknown user, wrong password, disabled or locked account. */
export class AuthenticationFailed extends Unauthenticated {
  constructor(code: 'invalid_client' | 'invalid_grant') {
    super('Authentication failed', { code });
  }
}

export class UnsupportedGrantType extends BadRequest {
  constructor(grant: string) {
    super(`Unsupported grant_type '${grant.slice(0, 64)}'`, { code: 'unsupported_grant_type' });
  }
}

export class InvalidScope extends BadRequest {
  constructor(scopes: string[]) {
    super(`Scope not allowed for this client: ${scopes.join(' ').slice(0, 200)}`, { code: 'invalid_scope' });
  }
}

export class InvalidGrant extends BadRequest {
  constructor(message = 'Invalid refresh token') {
    super(message, { code: 'invalid_grant' });
  }
}

export class InvalidRequest extends BadRequest {
  constructor(message: string) {
    super(message, { code: 'invalid_request' });
  }
}

/** RFC 8707 §2: a `resource` (or `audience`) the service cannot issue a token for. */
export class InvalidTarget extends BadRequest {
  constructor(targets: string[]) {
    super(`Unknown audience: ${targets.join(' ').slice(0, 200)}`, { code: 'invalid_target' });
  }
}
