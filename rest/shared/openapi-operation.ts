import type { z } from 'zod';
import { HTTPValidationErrorSchema, type Json, type SchemaWriter } from './openapi-schemas';
import type { OperationDocs, Route } from './routes';

/** One operation's parameters, request body and responses, from its route's schemas and its docs. */

const isOptional = (s: z.ZodType) => s.safeParse(undefined).success;

export function parameters(route: Route, path: string, docs: OperationDocs, w: SchemaWriter): Json[] {
  const out = new Map<string, Json>();
  const add = (where: 'query' | 'path' | 'header', obj: z.ZodObject | undefined) => {
    for (const [name, field] of Object.entries(obj?.shape ?? {})) {
      const s = field as z.ZodType;
      // OpenAPI ignores an Authorization parameter: the security scheme says it.
      if (where === 'header' && name.toLowerCase() === 'authorization') continue;
      out.set(name, {
        name,
        in: where,
        required: where === 'path' || !isOptional(s),
        schema: w.schema(s),
        ...(s.description ? { description: s.description } : {}),
      });
    }
  };
  add('path', route.input?.path);
  add('query', route.input?.query ?? route.input?.merged);
  add('header', route.input?.header);
  for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
    if (!out.has(name)) out.set(name, { name, in: 'path', required: true, schema: { type: 'string' } });
  }
  for (const [name, more] of Object.entries(docs.params ?? {})) {
    const given = out.get(name);
    out.set(
      name,
      given ? { ...given, ...more, schema: { ...(given.schema as Json), ...(more.schema as Json | undefined) } } : { name, ...more },
    );
  }
  return [...out.values()];
}

function generatedBody(route: Route, w: SchemaWriter, optionalBodies: Set<string>): Json | undefined {
  const { body, merged } = route.input ?? {};
  if (body) return { required: !isOptional(body), content: { 'application/json': { schema: w.schema(body) } } };
  if (!merged) return undefined;
  // The query string is the documented place; a body is an alternative, so nothing in it is required.
  // JSON comes first: Swagger UI fills a form body with sample values it would send.
  const name = w.nameOf(merged);
  if (name) optionalBodies.add(name);
  const { required: _r, ...schema } = w.schema(merged);
  return {
    required: false,
    description: 'The same parameters may be sent as a JSON or form body instead of the query string; the query string wins.',
    content: { 'application/json': { schema, example: {} }, 'application/x-www-form-urlencoded': { schema } },
  };
}

export function requestBody(route: Route, docs: OperationDocs, w: SchemaWriter, optionalBodies: Set<string>): Json | undefined {
  const generated = generatedBody(route, w, optionalBodies);
  if (!docs.body) return generated;
  const { content, example, description, required } = docs.body;
  const media = content
    ? Object.fromEntries(Object.entries(content).map(([type, s]) => [type, { schema: w.schema(s) }]))
    : { ...(generated?.content as Json) };
  const [first] = Object.keys(media);
  if (first && example !== undefined) media[first] = { ...(media[first] as Json), example };
  return {
    required: required ?? (content ? true : (generated?.required ?? true)),
    ...((description ?? generated?.description) ? { description: description ?? generated?.description } : {}),
    content: media,
  };
}

export function responses(route: Route, docs: OperationDocs, w: SchemaWriter): Json {
  const out: Json = {};
  for (const [status, r] of Object.entries({ ...route.responses, ...docs.responses })) {
    const content = r.content ?? (r.schema ? { [r.contentType ?? 'application/json']: r.schema } : {});
    const entries = Object.entries(content).map(([type, s]) => [type, s ? { schema: w.schema(s) } : {}] as const);
    out[status] = { description: r.description, ...(entries.length ? { content: Object.fromEntries(entries) } : {}) };
  }
  if (route.auth) {
    out[401] ??= { description: 'Missing or invalid bearer token (WWW-Authenticate says which)' };
    out[403] ??= { description: `The token lacks a role: ${(route.auth.roles ?? []).join(', ') || 'none needed'}` };
  }
  // Vendor routes answer a bad body with their own 400.
  if (route.input && !route.errorBody && !out[422]) {
    out[422] = { description: 'Validation Error', content: { 'application/json': { schema: w.schema(HTTPValidationErrorSchema) } } };
  }
  return out;
}
