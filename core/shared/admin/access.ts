import { InsufficientRole, type Caller } from '../auth/caller';
import { bearerCaller, type Credentials } from '../auth/credentials';
import type { AuditActor } from './audit';
import { Forbidden, NotFound } from '../errors';
import { PLATFORM_ADMIN_ROLE, REALM_ADMIN_ROLE } from './roles';

/**
 * Who may administer what (docs/admin.md). Every admin route and resolver turns its caller into an
 * `Admin` first (a plain user or client gets 403), then asks before it reads or writes:
 * - a platform administrator (role `platform-admin`, from any realm's token) may do everything;
 * - a realm administrator (role `realm-admin`) only in the realm that issued its token, and only
 *   for that realm's tenants: the realm's own id (the default tenant of its clients and users) and
 *   the tenant its token carries. Another realm's objects answer 404, as if they did not exist.
 * Only a platform administrator grants `platform-admin`, so a realm administrator cannot raise itself.
 */
/** Keycloak's username of a client's own tokens (client credentials). */
const SERVICE_ACCOUNT_PREFIX = 'service-account-';

export interface Admin {
  /** A platform administrator (or the local CLI, which holds the data directory). */
  platform: boolean;
  /** The realm that issued the administrator's token; '' for the local CLI. */
  realm: string;
  /** The tenant its token carries. */
  tenant?: string;
  /** Who, for audit events. */
  actor: AuditActor;
}

/** Who a bearer token's caller is in an audit event: the person, or the client acting for itself. */
export function actorOf(caller: Caller): AuditActor {
  // A client's own token names its service account (Keycloak's `service-account-<client id>`), not a person.
  const person = !!caller.username && !caller.username.startsWith(SERVICE_ACCOUNT_PREFIX);
  return person
    ? { kind: 'user', realm: caller.realm, id: caller.subject, name: caller.username }
    : { kind: 'client', realm: caller.realm, id: caller.subject, name: caller.clientId };
}

/** The caller as an administrator, or 403 (a missing role, as every bearer route says it). */
export function adminOf(caller: Caller): Admin {
  const platform = caller.roles.includes(PLATFORM_ADMIN_ROLE);
  if (!platform && !caller.roles.includes(REALM_ADMIN_ROLE)) throw new InsufficientRole([REALM_ADMIN_ROLE]);
  return { platform, realm: caller.realm, tenant: caller.tenantId, actor: actorOf(caller) };
}

/** The `platform` command on a local data directory: whoever can read the data directory administers everything. */
export const cliAdmin = (osUser: string): Admin => ({ platform: true, realm: '', actor: { kind: 'cli', name: osUser } });

/** How every admin face establishes its caller: a bearer token of any of the platform's services, holding an administrator's role. */
export const adminCredentials: Credentials<Admin> = {
  kind: 'bearer',
  resolve: async (presented, tools) => adminOf(await bearerCaller(presented, { ...tools, audience: undefined })),
};

/** Only platform administrators (realms, the model catalog, the audit of every realm). */
export function requirePlatform(admin: Admin): void {
  if (!admin.platform) throw new InsufficientRole([PLATFORM_ADMIN_ROLE]);
}

/** Whether the administrator may act in realm `realmId` (its id, as stored). */
export const mayRealm = (admin: Admin, realmId: string): boolean => admin.platform || admin.realm === realmId;

/** Throws 404 unless the administrator may act in `realmId`: another realm is not disclosed. */
export function checkRealm(admin: Admin, realmId: string): void {
  if (!mayRealm(admin, realmId)) throw new NotFound(`no realm '${realmId}'`);
}

/** The tenants a realm administrator administers; undefined for a platform administrator (every tenant). */
export const tenantsOf = (admin: Admin): readonly string[] | undefined =>
  admin.platform ? undefined : [...new Set([admin.realm, admin.tenant ?? ''].filter(Boolean))];

export const mayTenant = (admin: Admin, tenant: string): boolean => tenantsOf(admin)?.includes(tenant) ?? true;

/** Throws 404 unless the administrator may act on `tenant`'s objects (model keys, documents): `what` names the object. */
export function checkTenant(admin: Admin, tenant: string, what = `tenant '${tenant}'`): void {
  if (!mayTenant(admin, tenant)) throw new NotFound(`no ${what}`);
}

/**
 * A client's or user's tenant as a realm administrator may set it: one of its own tenants (403
 * otherwise, so nobody mints tokens for another tenant's documents). Undefined stays undefined.
 */
export function checkAssignedTenant(admin: Admin, tenant: string | undefined): void {
  if (tenant === undefined || mayTenant(admin, tenant)) return;
  throw new Forbidden(`a realm administrator may only assign its own tenants: ${tenantsOf(admin)!.join(', ')}`);
}

/** Roles given to a user or client: `platform-admin` only by a platform administrator (403). */
export function checkGrant(admin: Admin, roles: readonly string[] | undefined): void {
  if (!admin.platform && roles?.includes(PLATFORM_ADMIN_ROLE))
    throw new Forbidden(`only a platform administrator may grant '${PLATFORM_ADMIN_ROLE}'`);
}

/**
 * A user or client a realm administrator changes in any way (password, roles, enabled, secret,
 * sessions): never one holding `platform-admin`, or it could sign in as a platform administrator.
 */
export function checkTouch(admin: Admin, target: { roles: readonly string[] }, what: string): void {
  if (!admin.platform && target.roles.includes(PLATFORM_ADMIN_ROLE))
    throw new Forbidden(`only a platform administrator may change ${what}, a platform administrator`);
}
