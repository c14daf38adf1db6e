import type { Response } from 'express';
import { z } from 'zod';
import type { Admin } from '../../core/shared/admin/access';
import { etagOf, MAX_PAGE, versionFrom, type Page, type PageAsk } from '../../core/shared/admin/paging';
import { defineFor } from '../shared/routes';

/** An admin route: its `ctx.caller` is an administrator (core/shared/admin/access.ts). */
export const defineAdmin = defineFor<Admin>();

/** Every list's query: `limit`, `cursor`, `sort` (a route adds its filters). */
export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).optional().describe(`Items per page, 1-${MAX_PAGE} (default 50)`),
  cursor: z.string().max(512).optional().describe("The previous page's `next_cursor`"),
  sort: z.string().max(64).optional().describe('A field to sort by; `-field` for descending'),
});

export const pageAsk = (q: { limit?: number; cursor?: string; sort?: string }): PageAsk => ({
  limit: q.limit,
  cursor: q.cursor,
  sort: q.sort,
});

/** A page as every admin list answers it: `{items, next_cursor, total}`. */
export const pageBody = <T>(page: Page<T>, view: (t: T) => unknown = (t) => t) => ({
  items: page.items.map(view),
  next_cursor: page.nextCursor,
  total: page.total,
});

/** The JSON schema of a page of `item`. */
export const PageOf = (item: z.ZodType) => z.object({ items: z.array(item), next_cursor: z.string().nullable(), total: z.number().int() });

/** The `If-Match` header every update takes: the ETag (version) the object was read with; 412 when it changed since. */
export const IfMatch = z.object({
  'if-match': z
    .string()
    .max(64)
    .optional()
    .describe('The ETag the object was read with; 412 Precondition Failed when it has changed since'),
});

/** The version If-Match names (absent or `*`: any). */
export const ifMatchVersion = (h: { 'if-match'?: string }): number | undefined => versionFrom(h['if-match']);

/** Sets the object's ETag and returns it (the body carries `version` too). */
export function withEtag<T extends { version: number }>(res: Response, obj: T): T {
  res.setHeader('ETag', etagOf(obj.version));
  return obj;
}

/** A 201 with the created object. */
export function created<T>(res: Response, obj: T): T {
  res.status(201);
  return obj;
}
