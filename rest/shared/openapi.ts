import { parameters, requestBody, responses } from './openapi-operation';
import { HTTPValidationErrorSchema, SchemaWriter, ValidationErrorSchema, type Json } from './openapi-schemas';
import type { OperationDocs, RestService } from './routes';

/**
 * OpenAPI 3.1 from the same zod schemas that validate requests, so the document cannot drift from
 * behaviour; `docs` on a route adds what its schemas cannot say (examples, enums, security, the
 * body a vendor route checks itself, a path Express takes as one segment). Named schemas become
 * components and are referenced by `$ref`. Checked by `redocly lint` (redocly.yaml) in the tests.
 */
export type { Json } from './openapi-schemas';
export { HTTPValidationErrorSchema, ValidationErrorSchema } from './openapi-schemas';

/** How protected routes authenticate: the token service's access tokens (RFC 6750, RFC 9068). */
const BEARER_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: 'An access token from the token service (`POST /auth/api/v1/oauth/connect/token`), as `Authorization: Bearer <token>`.',
};

/** The components `value` refers to, directly or through other components. */
function referenced(value: unknown, schemas: Json, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => referenced(v, schemas, found));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const name = k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/') ? v.slice(21) : undefined;
      if (name && !found.has(name)) referenced(schemas[name], schemas, found.add(name));
      else referenced(v, schemas, found);
    }
  }
  return found;
}

const servers = (publicUrl?: string) => [
  { url: '/', description: 'This server: the address this page was loaded from' },
  ...(publicUrl
    ? [{ url: publicUrl.replace(/\/+$/, ''), description: 'PUBLIC_URL: the address the platform is configured to be reached at' }]
    : []),
];

export function buildOpenApi(svc: RestService, opts: { publicUrl?: string } = {}): Json {
  const w = new SchemaWriter({ ValidationError: ValidationErrorSchema, HTTPValidationError: HTTPValidationErrorSchema, ...svc.schemas });
  const optionalBodies = new Set<string>();
  const paths: Record<string, Json> = {};
  let bearer = false;
  for (const route of svc.routes) {
    const operations: readonly OperationDocs[] = Array.isArray(route.docs) ? route.docs : [route.docs ?? {}];
    for (const docs of operations) {
      const relative = docs.path ?? route.path.replace(/:(\w+)/g, '{$1}');
      const security = route.auth ? [{ bearerAuth: [] }] : (docs.security ?? svc.docs?.security ?? []);
      bearer ||= security.some((s) => 'bearerAuth' in s);
      const body = requestBody(route, docs, w, optionalBodies);
      const description = docs.description ?? route.description;
      const tags = docs.tags ?? route.tags;
      paths[svc.prefix + relative] = {
        ...paths[svc.prefix + relative],
        [route.method]: {
          summary: docs.summary ?? route.summary,
          ...(description ? { description } : {}),
          ...(tags ? { tags } : {}),
          operationId: `${route.method}_${relative.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`,
          parameters: parameters(route, relative, docs, w),
          security,
          ...(body ? { requestBody: body } : {}),
          responses: responses(route, docs, w),
        },
      };
    }
  }
  const securitySchemes = { ...(bearer ? { bearerAuth: BEARER_SCHEME } : {}), ...svc.docs?.securitySchemes };
  // A named schema no operation uses (a validation error where nothing is validated) is left out.
  const named = w.components(optionalBodies);
  const used = referenced(paths, named);
  const schemas = Object.fromEntries(Object.entries(named).filter(([name]) => used.has(name)));
  return {
    openapi: '3.1.0',
    info: { title: svc.title, version: svc.version, ...(svc.docs?.description ? { description: svc.docs.description } : {}) },
    servers: servers(opts.publicUrl),
    paths,
    components: { schemas, ...(Object.keys(securitySchemes).length ? { securitySchemes } : {}) },
  };
}
