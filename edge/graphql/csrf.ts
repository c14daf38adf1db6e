import type { Request } from 'express';
import { BadRequest } from '../../core/shared/errors';

/** Content types a page on another site may send without a CORS preflight (an HTML form's). */
const SIMPLE_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];
/** Headers Apollo's CSRF prevention takes as the proof of a preflight. */
export const PREFLIGHT_HEADERS = ['x-apollo-operation-name', 'apollo-require-preflight'] as const;

/**
 * Apollo Server's CSRF prevention, for the operations the gateway answers before Apollo (GraphQL
 * over SSE): a request that a browser would send cross-site without a preflight (no content type,
 * or one of the form types) must carry a non-empty `apollo-require-preflight` or
 * `x-apollo-operation-name` header (or one of `extra`), else it is refused as Apollo refuses it.
 * An unparsable content type passes, as with Apollo: a browser preflights it.
 */
export function refuseCrossSite(req: Request, extra: readonly string[] = []): void {
  const contentType = req.get('content-type');
  if (contentType !== undefined) {
    const essence = contentType.split(';')[0].trim().toLowerCase();
    if (!/^[\w!#$&^.+-]+\/[\w!#$&^.+-]+$/.test(essence) || !SIMPLE_TYPES.includes(essence)) return;
  }
  if ([...PREFLIGHT_HEADERS, ...extra].some((h) => (req.get(h) ?? '').length > 0)) return;
  throw new BadRequest(
    'This operation has been blocked as a potential Cross-Site Request Forgery (CSRF). Please either specify a ' +
      `'content-type' header (with a type that is not one of ${SIMPLE_TYPES.join(', ')}) or provide a non-empty value for one of ` +
      `the following headers: ${PREFLIGHT_HEADERS.join(', ')}`,
    { code: 'BAD_REQUEST' },
  );
}
