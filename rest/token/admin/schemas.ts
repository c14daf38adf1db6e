import { z } from 'zod';
import { ListQuery } from '../../admin/common';

/**
 * Wire schemas of the token service's admin routes (docs/admin.md): bodies refuse unknown fields,
 * every string and list is bounded. The answers are the core's views (core/token/admin-api/views.ts).
 */
const name = (what: string) => z.string().min(1).max(128).describe(what);
const list = (what: string, max = 50) => z.array(z.string().min(1).max(2000)).max(max).describe(what);
const flag = z.enum(['true', 'false']).transform((v) => v === 'true');
const lifespan = (what: string) =>
  z
    .int()
    .min(1)
    .max(365 * 24 * 3600)
    .describe(`${what}, in seconds`);

export const RealmPath = z.object({ realm: name('The realm: its id or its name') });
export const ClientPath = RealmPath.extend({ client_id: name('The client id') });
export const UserPath = RealmPath.extend({ username: name('The username') });
export const SessionPath = RealmPath.extend({ id: z.string().min(1).max(128).describe('The session id') });

export const RealmListQuery = ListQuery.extend({
  name: z.string().max(128).optional().describe('A substring of the name, in any case'),
  enabled: flag.optional(),
}).describe('sort: `name` (default) or `created_at`, `-` for descending');
export const ClientListQuery = ListQuery.extend({
  q: z.string().max(128).optional().describe('A substring of the client id, in any case'),
  enabled: flag.optional(),
  public: flag.optional(),
});
export const UserListQuery = ListQuery.extend({
  q: z.string().max(128).optional().describe('A substring of the username, in any case'),
  enabled: flag.optional(),
  role: z.string().max(128).optional().describe('Users holding this role'),
});
export const SessionListQuery = ListQuery.extend({
  username: z.string().max(128).optional().describe("Only this user's sessions"),
});

export const RealmCreate = z
  .object({
    name: name('Unique in any case: letters, digits and . _ : @ -'),
    access_token_lifespan: lifespan('How long access tokens last (300 by default)').optional(),
    refresh_token_lifespan: lifespan('How long a session lasts without use (1800 by default); at least the access lifespan').optional(),
  })
  .strict();
export const RealmUpdate = z
  .object({
    name: name('A new name').optional(),
    enabled: z.boolean().optional().describe('false: no sign-in, no token, every session ended'),
    access_token_lifespan: lifespan('How long access tokens last').optional(),
    refresh_token_lifespan: lifespan('How long a session lasts without use').optional(),
  })
  .strict();

const clientFields = {
  roles: list('Realm roles its tokens carry; only a platform administrator gives `platform-admin`').optional(),
  scopes: list('The scopes it may ask for (openid, profile, email by default)').optional(),
  tenant_id: name("Its tenant: the realm's id by default; a realm administrator gives only its own tenants").optional(),
  redirect_uris: list('Where authorization codes may go: exact URIs, or paths on the platform').optional(),
  post_logout_redirect_uris: list('Where logout may send the browser back to').optional(),
  web_origins: list('Origins (`scheme://host[:port]`) whose pages may call with its tokens').optional(),
};
export const ClientCreate = z
  .object({
    client_id: name('Unique in the realm: letters, digits and . _ : @ -'),
    public: z.boolean().optional().describe('A browser or native app: no secret (sign-in with PKCE); confidential by default'),
    ...clientFields,
  })
  .strict();
export const ClientUpdate = z
  .object({ enabled: z.boolean().optional().describe('false: its sessions end, it gets no token'), ...clientFields })
  .strict();

const password = z.string().min(8).max(1024).describe('At least 8 characters; never shown again, nor recorded');
export const UserCreate = z
  .object({
    username: name('Unique in the realm, in any case: letters, digits and . _ : @ -'),
    password,
    tenant_id: clientFields.tenant_id,
    roles: clientFields.roles,
    email: z.string().max(320).optional(),
  })
  .strict();
export const UserUpdate = z
  .object({
    enabled: z.boolean().optional().describe('false: no sign-in, every session ended'),
    roles: clientFields.roles,
    email: z.string().max(320).nullable().optional().describe('null: none; a new address is unverified'),
    tenant_id: clientFields.tenant_id,
  })
  .strict();
export const PasswordBody = z.object({ password }).strict();

export const AdminRealm = z.object({
  realm: z.string().describe('Its id'),
  name: z.string(),
  enabled: z.boolean(),
  access_token_lifespan: z.int(),
  refresh_token_lifespan: z.int(),
  created_at: z.string(),
  default: z.boolean().describe('The realm used when none is named'),
  version: z.int().describe('+1 on every change: the ETag'),
});
export const AdminClient = z.object({
  client_id: z.string(),
  realm: z.string(),
  tenant_id: z.string(),
  enabled: z.boolean(),
  public: z.boolean(),
  roles: z.array(z.string()),
  scopes: z.array(z.string()),
  redirect_uris: z.array(z.string()),
  post_logout_redirect_uris: z.array(z.string()),
  web_origins: z.array(z.string()),
  created_at: z.string(),
  version: z.int(),
});
export const AdminClientWithSecret = AdminClient.extend({
  client_secret: z.string().optional().describe("A confidential client's secret: in this answer only, never again"),
});
export const AdminUser = z.object({
  id: z.string(),
  username: z.string(),
  realm: z.string(),
  tenant_id: z.string(),
  email: z.string().nullable(),
  email_verified: z.boolean(),
  enabled: z.boolean(),
  locked: z.boolean().describe('Too many wrong passwords from everywhere: refused until the window ends or an unlock'),
  roles: z.array(z.string()),
  created_at: z.string(),
  version: z.int(),
});
export const AdminSession = z.object({
  id: z.string(),
  realm: z.string(),
  username: z.string(),
  auth_time: z.string().describe('When the person typed their password'),
  created_at: z.string(),
  expires_at: z.string(),
});
export const KeyRotated = z.object({ realm: z.string(), kid: z.string(), keys: z.int().describe('Signing keys the realm now has') });
export const SessionsEnded = z.object({ realm: z.string(), username: z.string(), sessions_ended: z.int() });
export const SessionEnded = z.object({ realm: z.string(), id: z.string(), sessions_ended: z.int() });

/** The named schemas of the admin document. */
export const tokenAdminSchemas = { AdminRealm, AdminClient, AdminUser, AdminSession };
