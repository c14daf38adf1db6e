/** Where the service's REST routes are mounted. */
export const SEARCH_PREFIX = '/cl/search/api';
