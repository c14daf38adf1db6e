import { z } from 'zod';
import type { RestService, Route } from './routes';

/**
 * OpenAPI 3.1 from the same zod schemas that validate requests, so the document cannot drift from
 * behaviour. Named schemas become components and are referenced by `$ref`.
 */
export const ValidationErrorSchema = z.object({
  loc: z.array(z.union([z.string(), z.int()])),
  msg: z.string(),
  type: z.string(),
});
export const HTTPValidationErrorSchema = z.object({ detail: z.array(ValidationErrorSchema) });

type Json = Record<string, unknown>;

/** How protected routes authenticate: the token service's access tokens (RFC 6750, RFC 9068). */
const BEARER_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: 'An access token from the token service (`POST /auth/api/v1/oauth/connect/token`), as `Authorization: Bearer <token>`.',
};

function jsonSchema(schema: z.ZodType, named: Map<z.ZodType, string>): Json {
  const name = named.get(schema);
  if (name) return { $ref: `#/components/schemas/${name}` };
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Json;
  return rest;
}

const isOptional = (s: z.ZodType) => s.safeParse(undefined).success;

function parameters(route: Route, named: Map<z.ZodType, string>): Json[] {
  const out: Json[] = [];
  const add = (where: 'query' | 'path' | 'header', obj: z.ZodObject | undefined) => {
    for (const [key, field] of Object.entries(obj?.shape ?? {})) {
      const s = field as z.ZodType;
      out.push({
        name: key,
        in: where,
        required: where === 'path' || !isOptional(s),
        schema: jsonSchema(s, named),
        ...(s.description ? { description: s.description } : {}),
      });
    }
  };
  add('path', route.input?.path);
  add('query', route.input?.query ?? route.input?.merged);
  add('header', route.input?.header);
  return out;
}

function requestBody(route: Route, named: Map<z.ZodType, string>): Json | undefined {
  const { body, merged } = route.input ?? {};
  if (body) return { required: !isOptional(body), content: { 'application/json': { schema: jsonSchema(body, named) } } };
  if (merged) {
    const schema = jsonSchema(merged, named);
    return {
      required: false,
      description: 'The same parameters may be sent as a form or JSON body instead of the query string; the query string wins.',
      content: { 'application/x-www-form-urlencoded': { schema }, 'application/json': { schema } },
    };
  }
  return undefined;
}

export function buildOpenApi(svc: RestService): Json {
  const named = new Map<z.ZodType, string>([
    [ValidationErrorSchema, 'ValidationError'],
    [HTTPValidationErrorSchema, 'HTTPValidationError'],
  ]);
  for (const [name, schema] of Object.entries(svc.schemas ?? {})) named.set(schema, name);

  const paths: Record<string, Json> = {};
  for (const route of svc.routes) {
    const path = svc.prefix + route.path.replace(/:(\w+)/g, '{$1}');
    const responses: Json = {};
    for (const [status, r] of Object.entries(route.responses)) {
      responses[status] = {
        description: r.description,
        ...(r.schema ? { content: { [r.contentType ?? 'application/json']: { schema: jsonSchema(r.schema, named) } } } : {}),
      };
    }
    if (route.auth) {
      responses[401] ??= { description: 'Missing or invalid bearer token (WWW-Authenticate says which)' };
      responses[403] ??= { description: `The token lacks a role: ${(route.auth.roles ?? []).join(', ') || 'none needed'}` };
    }
    if (route.input && !responses[422]) {
      responses[422] = { description: 'Validation Error', content: { 'application/json': { schema: jsonSchema(HTTPValidationErrorSchema, named) } } };
    }
    const body = requestBody(route, named);
    paths[path] = {
      ...paths[path],
      [route.method]: {
        summary: route.summary,
        ...(route.description ? { description: route.description } : {}),
        ...(route.tags ? { tags: route.tags } : {}),
        operationId: `${route.method}_${route.path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`,
        parameters: parameters(route, named),
        ...(route.auth ? { security: [{ bearerAuth: [] }] } : {}),
        ...(body ? { requestBody: body } : {}),
        responses,
      },
    };
  }

  const schemas: Json = {};
  for (const [schema, name] of named) {
    const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Json;
    schemas[name] = rest;
  }
  const secured = svc.routes.some((r) => r.auth);
  const securitySchemes = secured ? { bearerAuth: BEARER_SCHEME } : undefined;
  return { openapi: '3.1.0', info: { title: svc.title, version: svc.version }, paths, components: { schemas, ...(securitySchemes ? { securitySchemes } : {}) } };
}
