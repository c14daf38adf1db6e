/** Where the service's REST routes are mounted. */
export const TOKEN_PREFIX = '/auth/api/v1';
