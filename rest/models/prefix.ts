/** Where the service's REST routes are mounted. */
export const MODELS_PREFIX = '/proxy/api/v1';
