import type { Caller } from '../../../../core/shared/auth/caller';
import {
  adminOf,
  checkAssignedTenant,
  checkGrant,
  checkRealm,
  checkTenant,
  checkTouch,
  cliAdmin,
  requirePlatform,
  tenantsOf,
} from '../../../../core/shared/admin/access';
import { PLATFORM_ADMIN_ROLE, REALM_ADMIN_ROLE } from '../../../../core/shared/admin/roles';

const caller = (roles: string[], over: Partial<Caller> = {}): Caller => ({
  realm: 'r1',
  subject: 'sub-1',
  tenantId: 't1',
  roles,
  scopes: [],
  clientId: 'platform-login',
  username: 'alice',
  sessionId: 's',
  tokenId: 'j',
  expiresAt: 0,
  audience: ['search'],
  bearer: 'never-logged',
  ...over,
});

describe('who may administer what', () => {
  it('refuses a caller with neither administrator role (403, the role named)', () => {
    expect(() => adminOf(caller(['search:read']))).toThrow(expect.objectContaining({ kind: 'forbidden', required: [REALM_ADMIN_ROLE] }));
  });

  it('makes a realm administrator of its own realm and tenants only', () => {
    const admin = adminOf(caller([REALM_ADMIN_ROLE]));
    expect(admin).toMatchObject({ platform: false, realm: 'r1', actor: { kind: 'user', realm: 'r1', id: 'sub-1', name: 'alice' } });
    expect(tenantsOf(admin)).toEqual(['r1', 't1']);
    expect(() => checkRealm(admin, 'r1')).not.toThrow();
    expect(() => checkRealm(admin, 'r2')).toThrow(expect.objectContaining({ kind: 'not_found' }));
    expect(() => checkTenant(admin, 't1')).not.toThrow();
    expect(() => checkTenant(admin, 't2')).toThrow(expect.objectContaining({ kind: 'not_found' }));
    expect(() => checkAssignedTenant(admin, 't2')).toThrow(expect.objectContaining({ kind: 'forbidden' }));
    expect(() => checkAssignedTenant(admin, undefined)).not.toThrow();
    expect(() => requirePlatform(admin)).toThrow(expect.objectContaining({ kind: 'forbidden' }));
  });

  it('never lets a realm administrator grant the platform role or touch a platform administrator', () => {
    const admin = adminOf(caller([REALM_ADMIN_ROLE]));
    expect(() => checkGrant(admin, ['search:read', PLATFORM_ADMIN_ROLE])).toThrow(expect.objectContaining({ kind: 'forbidden' }));
    expect(() => checkGrant(admin, [REALM_ADMIN_ROLE])).not.toThrow();
    expect(() => checkTouch(admin, { roles: [PLATFORM_ADMIN_ROLE] }, "user 'root'")).toThrow(
      expect.objectContaining({ kind: 'forbidden' }),
    );
    expect(() => checkTouch(admin, { roles: [] }, "user 'bob'")).not.toThrow();
  });

  it('lets a platform administrator (from any realm) and the local CLI do everything', () => {
    for (const admin of [adminOf(caller([PLATFORM_ADMIN_ROLE], { realm: 'r9', username: '', clientId: 'ops' })), cliAdmin('root')]) {
      expect(admin.platform).toBe(true);
      expect(tenantsOf(admin)).toBeUndefined();
      expect(() => checkRealm(admin, 'r2')).not.toThrow();
      expect(() => checkTenant(admin, 'anyone')).not.toThrow();
      expect(() => checkGrant(admin, [PLATFORM_ADMIN_ROLE])).not.toThrow();
      expect(() => checkTouch(admin, { roles: [PLATFORM_ADMIN_ROLE] }, 'x')).not.toThrow();
      expect(() => requirePlatform(admin)).not.toThrow();
    }
    expect(adminOf(caller([PLATFORM_ADMIN_ROLE], { username: '', clientId: 'ops' })).actor).toMatchObject({ kind: 'client', name: 'ops' });
    expect(cliAdmin('root').actor).toEqual({ kind: 'cli', name: 'root' });
  });
});

describe('an audit actor', () => {
  it("is a client when the token is a client's own (its service account), a person otherwise", () => {
    const client = adminOf(caller([PLATFORM_ADMIN_ROLE], { username: 'service-account-ops', clientId: 'ops' }));
    expect(client.actor).toMatchObject({ kind: 'client', name: 'ops' });
  });
});
