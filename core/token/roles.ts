/** The administrators' roles, defined once for every service (core/shared/admin/roles.ts). */
export { PLATFORM_ADMIN_ROLE, REALM_ADMIN_ROLE } from '../shared/admin/roles';
