/** Where the service's REST routes are mounted. */
export const CHAT_PREFIX = '/api';
