import { BadRequest, PlatformError, RateLimited, UpstreamFailed, UpstreamTimeout } from '../../shared/errors';
import { transportError } from '../../shared/http/failures';
import { blot, statusError, withVendorAnswer } from './errors';

/**
 * The AWS SDK's errors (and a stream's exception events) as the gateway's, by the rules of
 * errors.ts: throttling 429, validation 400 with the vendor's message, a refused configuration 502
 * `upstream_misconfigured`, a timeout 504, the service's failures 502.
 */
const MISCONFIGURED = new Set([
  'AccessDeniedException',
  'ResourceNotFoundException',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'ExpiredTokenException',
  'IncompleteSignatureException',
  'CredentialsProviderError',
]);
const FAILED = new Set([
  'ServiceUnavailableException',
  'InternalServerException',
  'ModelErrorException',
  'ModelNotReadyException',
  'ModelStreamErrorException',
]);

/** An AWS SDK error (or a stream's exception event) as the gateway's; an abort rethrows the caller's reason. */
export function sdkError(err: unknown, vendor: string, signal?: AbortSignal, secrets: readonly string[] = []): unknown {
  if (signal?.aborted) return signal.reason ?? err;
  if (err instanceof PlatformError) return err;
  const e = (err ?? {}) as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const name = (e.name ?? '').replace(/^[a-z]/, (c) => c.toUpperCase());
  const status = e.$metadata?.httpStatusCode;
  if (name === 'ThrottlingException' || name === 'ServiceQuotaExceededException') {
    const limited = new RateLimited(`${vendor} is rate limiting the gateway (${name}); retry in 1 s`, 1, {
      code: 'upstream_rate_limited',
      cause: err,
    });
    return withVendorAnswer(limited, status ?? 429);
  }
  if (name === 'ValidationException')
    return new BadRequest(blot(e.message || `${vendor} rejected the request`, secrets), { code: 'upstream_rejected' });
  if (MISCONFIGURED.has(name)) {
    const misconfigured = new UpstreamFailed(
      `${vendor} refused the gateway's configuration (${name}${status ? `, HTTP ${status}` : ''}); it needs fixing`,
      { code: 'upstream_misconfigured' },
    );
    return withVendorAnswer(misconfigured, status ?? 403);
  }
  if (name === 'ModelTimeoutException' || name === 'TimeoutError')
    return new UpstreamTimeout(`${vendor} did not answer in time`, { code: 'upstream_timeout', cause: err });
  if (FAILED.has(name)) {
    const failed = new UpstreamFailed(`${vendor} failed (${name}${status ? `, HTTP ${status}` : ''})`, {
      code: 'upstream_error',
      cause: err,
    });
    return withVendorAnswer(failed, status ?? 500);
  }
  if (status) return statusError(vendor, status, JSON.stringify({ message: e.message }), {}, secrets);
  return transportError(vendor, err);
}
