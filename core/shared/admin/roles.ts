/**
 * The administrators' realm roles, carried in the realm's tokens (`realm_access.roles`) as every
 * other role is: a platform administrator administers every realm, the model catalog and the
 * platform; a realm administrator one realm's clients, users, sessions, model keys and documents.
 * The first start makes a platform administrator in the default realm (services/token/bootstrap.ts).
 */
export const PLATFORM_ADMIN_ROLE = 'platform-admin';
export const REALM_ADMIN_ROLE = 'realm-admin';
