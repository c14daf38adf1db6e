/**
 * The platform's one error hierarchy. Core code throws these; each transport maps them once
 * (rest/shared/http-errors.ts to a status, edge/graphql/errors.ts to an extensions.code).
 * Nothing here knows about HTTP or GraphQL.
 */
export type ErrorKind =
  | 'bad_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation'
  | 'rate_limited'
  | 'upstream'
  | 'upstream_timeout'
  | 'unavailable'
  | 'internal';

/** One problem with one input value, in the spec's `ValidationError` shape. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export abstract class PlatformError extends Error {
  abstract readonly kind: ErrorKind;
  /** A machine-readable code for clients (OAuth `error`, guardrail codes, ...). */
  readonly code?: string;

  constructor(message: string, options?: ErrorOptions & { code?: string }) {
    super(message, options);
    this.name = new.target.name;
    if (options?.code) this.code = options.code;
  }

  /** Internal errors never show their message to a caller. */
  get expose(): boolean {
    return this.kind !== 'internal';
  }
}

export class BadRequest extends PlatformError {
  readonly kind = 'bad_request';
}
export class Unauthenticated extends PlatformError {
  readonly kind = 'unauthenticated';
}
export class Forbidden extends PlatformError {
  readonly kind = 'forbidden';
}
export class NotFound extends PlatformError {
  readonly kind = 'not_found';
}
export class Conflict extends PlatformError {
  readonly kind = 'conflict';
}
/** An update named the version it read (If-Match, `version`) and the object has changed since: read it again. */
export class PreconditionFailed extends PlatformError {
  readonly kind = 'precondition_failed';
}
export class PayloadTooLarge extends PlatformError {
  readonly kind = 'payload_too_large';
}
/** A file over an upload limit (a multipart part, a GraphQL upload), naming the limit and the setting that sets it. */
export const fileTooLarge = (maxBytes: number, setting?: string) =>
  new PayloadTooLarge(`File too large: at most ${maxBytes} bytes${setting ? ` (${setting})` : ''}`);
export class UnsupportedMediaType extends PlatformError {
  readonly kind = 'unsupported_media_type';
}
export class RateLimited extends PlatformError {
  readonly kind = 'rate_limited';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    options?: ErrorOptions & { code?: string },
  ) {
    super(message, options);
  }
}
export class UpstreamFailed extends PlatformError {
  readonly kind = 'upstream';
}
export class UpstreamTimeout extends PlatformError {
  readonly kind = 'upstream_timeout';
}
export class InternalError extends PlatformError {
  readonly kind = 'internal';
}
/** A store the platform depends on (PostgreSQL, Redis) cannot be reached for now: try again after `retryAfterSeconds`. */
export class Unavailable extends PlatformError {
  readonly kind = 'unavailable';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    options?: ErrorOptions & { code?: string },
  ) {
    super(message, options);
  }
}

export class MethodNotAllowed extends PlatformError {
  readonly kind = 'method_not_allowed';
  constructor(readonly allow: string[]) {
    super('Method Not Allowed');
  }
}

export class ValidationFailed extends PlatformError {
  readonly kind = 'validation';
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
  }
}
