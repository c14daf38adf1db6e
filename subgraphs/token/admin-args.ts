import { z } from 'zod';
import { MAX_PAGE } from '../../core/shared/admin/paging';
import { parseArgs } from '../shared/args';

/**
 * The admin fields' arguments, bounded as the admin REST API bounds its bodies and queries
 * (rest/token/admin/schemas.ts, which a subgraph may not import): the same bad value is refused
 * for the same reason, BAD_USER_INPUT here and 422 there. GraphQL already checked the types; these
 * bound lengths, list sizes and numbers. The schemas speak the REST wire's snake_case names; issues
 * are located at the GraphQL argument (`["input", "tenantId"]`).
 */
const name = z.string().min(1).max(128);
const list = z.array(z.string().min(1).max(2000)).max(50);
const lifespan = z
  .int()
  .min(1)
  .max(365 * 24 * 3600);
const password = z.string().min(8).max(1024);

const Page = z.object({
  limit: z.int().min(1).max(MAX_PAGE).optional(),
  cursor: z.string().max(512).optional(),
  sort: z.string().max(64).optional(),
});
const filter = z.string().max(128).optional();

export const RealmList = Page.extend({ name: filter, enabled: z.boolean().optional() });
export const ClientList = Page.extend({ realm: name, q: filter, enabled: z.boolean().optional(), public: z.boolean().optional() });
export const UserList = Page.extend({ realm: name, q: filter, enabled: z.boolean().optional(), role: filter });
export const SessionList = Page.extend({ realm: name, username: filter });

export const RealmRef = z.object({ realm: name });
export const ClientRef = RealmRef.extend({ client_id: name });
export const UserRef = RealmRef.extend({ username: name });
export const SessionRef = RealmRef.extend({ id: z.string().min(1).max(128) });
/** The version an update was read at; any when absent. */
export const Version = z.object({ version: z.int().min(1).optional() });

export const RealmCreate = z.object({
  name,
  access_token_lifespan: lifespan.optional(),
  refresh_token_lifespan: lifespan.optional(),
});
export const RealmUpdate = RealmCreate.partial().extend({ enabled: z.boolean().optional() });

const clientFields = {
  roles: list.optional(),
  scopes: list.optional(),
  tenant_id: name.optional(),
  redirect_uris: list.optional(),
  post_logout_redirect_uris: list.optional(),
  web_origins: list.optional(),
};
export const ClientCreate = z.object({ client_id: name, public: z.boolean().optional(), ...clientFields });
export const ClientUpdate = z.object({ enabled: z.boolean().optional(), ...clientFields });

export const UserCreate = z.object({
  username: name,
  password,
  tenant_id: name.optional(),
  roles: list.optional(),
  email: z.string().max(320).optional(),
});
export const UserUpdate = z.object({
  enabled: z.boolean().optional(),
  roles: list.optional(),
  email: z.string().max(320).optional(),
  tenant_id: name.optional(),
});
export const Password = z.object({ password });

export const AuditQuery = Page.omit({ sort: true }).extend({
  from: z.string().max(40).optional(),
  to: z.string().max(40).optional(),
  actor: z.string().max(256).optional(),
  realm: filter,
  tenant: filter,
  type: filter,
  outcome: z.enum(['success', 'failure']).optional(),
  order: z.enum(['asc', 'desc']).optional(),
});

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** GraphQL's paging arguments under the REST wire's names. */
const PAGING: Record<string, string> = { first: 'limit', after: 'cursor' };

/**
 * GraphQL arguments (camelCase; `first`, `after` for paging; `sort` naming camelCase fields) checked with `schema` under their
 * wire names; issues name the argument. GraphQL's null means absent.
 */
export function wireArgs<S extends z.ZodType>(schema: S, args: Record<string, unknown>, prefix: string[] = []): z.output<S> {
  const wire: Record<string, unknown> = {};
  const names: Record<string, string> = {};
  for (const [k, v] of Object.entries(args)) {
    const w = PAGING[k] ?? snake(k);
    // Sorts name fields as GraphQL does (`-createdAt`); the core's are the wire's (`-created_at`).
    wire[w] = k === 'sort' && typeof v === 'string' ? snake(v) : v;
    names[w] = k;
  }
  return parseArgs(schema, wire, names, prefix);
}
