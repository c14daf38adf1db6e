import type { z } from 'zod';
import { BadRequest, PlatformError, RateLimited, UpstreamFailed } from '../../shared/errors';
import { unreadable } from '../../shared/http/failures';
import { retryAfterMs, type HeaderBag } from '../../shared/http/retry';

/**
 * How a vendor's answers reach the gateway's callers (one mapping for every vendor; failures with no
 * answer at all are mapped in core/shared/http/failures.ts):
 * - 429 (after the retries): 429 `upstream_rate_limited`; 5xx (after the retries): 502 `upstream_error`;
 * - 401/403/404: 502 `upstream_misconfigured` (the gateway's credential or deployment is wrong, not
 *   the caller's), named by vendor and status only;
 * - 400/413/422: 400 with the vendor's own message (`upstream_rejected`, `content_filter`);
 * - a body that is not what the vendor sends: 502 `upstream_bad_response`.
 * Messages never carry a credential: the secrets of the request are blotted out of vendor text.
 */

/** The body parsed with `schema`, or 502 `upstream_bad_response` naming what was wrong. */
export function parseAnswer<S extends z.ZodType>(schema: S, body: unknown, vendor: string, what: string): z.output<S> {
  const r = schema.safeParse(body);
  if (!r.success)
    throw unreadable(vendor, `${what}: ${r.error.issues[0]?.path.join('.') || 'body'} ${r.error.issues[0]?.message ?? ''}`.trim());
  return r.data;
}

/** Replaces each secret (a credential the request carried) in vendor text. */
export const blot = (text: string, secrets: readonly string[]) =>
  secrets.filter((s) => s.length >= 4).reduce((t, s) => t.split(s).join('[redacted]'), text);

interface VendorError {
  message?: string;
  code?: string;
  status?: string;
  reason?: string;
}

/** `{"error": {"message", "code"}}` (OpenAI, Azure, Gemini) or `{"message"}` (AWS), whatever parses. */
function vendorError(text: string): VendorError {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const e = (typeof body.error === 'object' && body.error ? body.error : body) as Record<string, unknown>;
    const inner = e.innererror as { code?: unknown } | undefined;
    const details = Array.isArray(e.details) ? (e.details as { reason?: unknown }[]) : [];
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return {
      message: str(e.message) ?? str(e.Message) ?? str(body.detail),
      code: str(e.code) ?? str(inner?.code),
      status: str(e.status),
      reason: details.map((d) => str(d.reason)).find(Boolean),
    };
  } catch {
    return { message: text.trim() ? text.trim().slice(0, 500) : undefined };
  }
}

const MISCONFIGURED: Record<number, string> = {
  401: "rejected the gateway's credential",
  403: 'denied the gateway access',
  404: 'does not know the deployment or model',
};

/**
 * What the vendor answered, kept on the mapped error (the router, core/models/routing, retries and
 * fails over by the vendor's status, not the caller's: a vendor's 404 is the caller's 502).
 */
export interface VendorAnswer {
  /** The vendor's HTTP status. */
  upstreamStatus: number;
  /** The wait its `retry-after-ms` / `Retry-After` named, when it named one. */
  retryAfterMs?: number;
}

/** The vendor's answer an error was mapped from; undefined for a failure with no answer (a connection, a timeout). */
export const vendorAnswerOf = (err: unknown): VendorAnswer | undefined => {
  const s = (err as Partial<VendorAnswer> | undefined)?.upstreamStatus;
  return typeof s === 'number' ? (err as VendorAnswer) : undefined;
};

/** Marks `err` as the mapping of a vendor's `status` (and its named wait). */
export function withVendorAnswer<E extends PlatformError>(err: E, status: number, retryAfter?: number): E & VendorAnswer {
  return Object.assign(err, { upstreamStatus: status, ...(retryAfter !== undefined && { retryAfterMs: retryAfter }) });
}

/** A vendor's non-2xx answer (after the retries) as the gateway's error, carrying the vendor's status (VendorAnswer). */
export function statusError(vendor: string, status: number, text: string, h: HeaderBag, secrets: readonly string[] = []): PlatformError {
  return withVendorAnswer(mapStatus(vendor, status, text, h, secrets), status, retryAfterMs(h));
}

function mapStatus(vendor: string, status: number, text: string, h: HeaderBag, secrets: readonly string[]): PlatformError {
  const v = vendorError(text);
  // Gemini answers a bad API key with 400 INVALID_ARGUMENT: still the gateway's credential, not the caller's request.
  if (MISCONFIGURED[status] || v.reason === 'API_KEY_INVALID') {
    const what = MISCONFIGURED[status] ?? MISCONFIGURED[401];
    return new UpstreamFailed(`${vendor} ${what} (HTTP ${status}); the gateway's upstream configuration needs fixing`, {
      code: 'upstream_misconfigured',
    });
  }
  if (status === 400 || status === 413 || status === 422) {
    const filtered = v.code === 'content_filter' || v.code === 'ResponsibleAIPolicyViolation';
    const message = blot(v.message ?? `${vendor} rejected the request (HTTP ${status})`, secrets);
    return new BadRequest(message, { code: filtered ? 'content_filter' : 'upstream_rejected' });
  }
  if (status === 429) {
    const wait = retryAfterMs(h);
    const seconds = Math.max(1, Math.ceil((wait ?? 1000) / 1000));
    return new RateLimited(`${vendor} is rate limiting the gateway (HTTP 429); retry in ${seconds} s`, seconds, {
      code: 'upstream_rate_limited',
    });
  }
  return new UpstreamFailed(`${vendor} failed (HTTP ${status})`, { code: 'upstream_error' });
}
