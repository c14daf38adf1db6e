import { PlatformError } from '../shared/errors';
import { noMetrics, type Metrics } from '../shared/telemetry/metrics';

/** The grants the token endpoints serve; anything else a caller names is `other` (refused as unsupported). */
const GRANT_TYPES = new Set(['client_credentials', 'password', 'refresh_token']);

/** The `error` codes the token endpoints answer (RFC 6749 §5.2, RFC 8707, RFC 8628's slow_down, ours). */
const ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
  'slow_down',
  'realm_not_found',
]);

/** An error as an OAuth code: its own when it is one, else its kind's (`temporarily_unavailable`: a store out of reach), else `server_error`. */
function errorCode(err: unknown): string {
  if (err instanceof PlatformError) {
    if (err.code && ERRORS.has(err.code)) return err.code;
    if (err.kind === 'validation' || err.kind === 'bad_request') return 'invalid_request';
    if (err.kind === 'unauthenticated') return 'invalid_client';
    if (err.kind === 'rate_limited') return 'slow_down';
    if (err.kind === 'unavailable') return 'temporarily_unavailable';
  }
  return 'server_error';
}

export interface TokenTelemetry {
  issued(grantType: string): void;
  failed(grantType: string, err: unknown): void;
  /** Failed attempts locked an account or throttled a caller address. */
  lockout(this: void): void;
}

const nothing: TokenTelemetry = { issued() {}, failed() {}, lockout() {} };

/**
 * The token service's metrics: `platform_token_issued_total{grant_type}`,
 * `platform_token_failures_total{grant_type,error}` (grant types a closed set, errors OAuth codes)
 * and `platform_token_lockouts_total` (an account locked by its failed passwords, or a caller
 * address's window of failed attempts filled: counted once each, when it happens).
 */
export function tokenTelemetry(metrics: Metrics = noMetrics): TokenTelemetry {
  if (metrics === noMetrics) return nothing;
  const issued = metrics.counter({ name: 'platform_token_issued_total', help: 'Tokens issued, by grant type', labels: ['grant_type'] });
  const failures = metrics.counter({
    name: 'platform_token_failures_total',
    help: 'Token requests refused, by grant type and OAuth error code',
    labels: ['grant_type', 'error'],
  });
  const lockouts = metrics.counter({
    name: 'platform_token_lockouts_total',
    help: 'Accounts locked, and caller addresses throttled, by failed authentications',
  });
  const grant = (g: string) => (GRANT_TYPES.has(g) ? g : 'other');
  return {
    issued: (g) => issued.inc({ grant_type: grant(g) }),
    failed: (g, err) => failures.inc({ grant_type: grant(g), error: errorCode(err) }),
    lockout: () => lockouts.inc({}),
  };
}
