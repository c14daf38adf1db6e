import type { Request } from 'express';
import type { z } from 'zod';
import { ValidationFailed, type ValidationIssue } from '../../core/shared/errors';
import { check, isPlainObject } from '../../core/shared/validation';

/**
 * Request validation with the spec's 422 shape (FastAPI / pydantic v2 wording):
 * `{"detail":[{"loc":["query","client_id"],"msg":"Field required","type":"missing"}]}`.
 * `loc` starts with where the value was looked for: query, body, path or header.
 */
export type Location = 'query' | 'body' | 'path' | 'header';

export interface InputSpec {
  query?: z.ZodObject;
  body?: z.ZodType;
  path?: z.ZodObject;
  header?: z.ZodObject;
  /**
   * Parameters accepted from the query string, a form body or a JSON body alike (token service).
   * Query wins over body. An issue's loc names where the value came from; a missing value is
   * located in the body when the request has one, else in the query.
   */
  merged?: z.ZodObject;
  /** Lowest-priority values for `merged` taken from elsewhere in the request (e.g. HTTP Basic). */
  mergedDefaults?: (req: Request) => Record<string, unknown>;
}

type Part<I, K extends string> = I extends { [P in K]: infer S extends z.ZodType } ? z.output<S> : unknown;

/** The validated input a handler gets, inferred from its route's schemas. */
export type InputOf<I extends InputSpec> = Part<I, 'path'> &
  Part<I, 'query'> &
  Part<I, 'header'> &
  Part<I, 'merged'> &
  (I extends { body: infer B extends z.ZodType } ? { body: z.output<B> } : unknown);

/** Validates the parts of a request `spec` names; throws ValidationFailed listing every problem. */
export function parseRequest<I extends InputSpec>(spec: I, req: Request): InputOf<I> {
  const issues: ValidationIssue[] = [];
  const out: Record<string, unknown> = {};
  const query = (req.query ?? {}) as Record<string, unknown>;
  const sources: [Location, z.ZodType | undefined, unknown][] = [
    ['path', spec.path, req.params ?? {}],
    ['query', spec.query, query],
    ['header', spec.header, req.headers],
    ['body', spec.body, req.body],
  ];
  for (const [loc, schema, data] of sources) {
    if (!schema) continue;
    const value = check(schema, data, (p) => [loc, ...p], issues);
    if (loc === 'body') out.body = value;
    else Object.assign(out, value);
  }
  if (spec.merged) {
    const body = isPlainObject(req.body) ? req.body : {};
    const hasBody = Object.keys(body).length > 0;
    const merged: Record<string, unknown> = { ...spec.mergedDefaults?.(req), ...body, ...query };
    const origin = (key: string | number): Location => {
      if (String(key) in query) return 'query';
      return String(key) in body || hasBody ? 'body' : 'query';
    };
    Object.assign(
      out,
      check(spec.merged, merged, (p) => [origin(p[0] ?? ''), ...p], issues),
    );
  }
  if (issues.length) throw new ValidationFailed(issues);
  return out as InputOf<I>;
}
