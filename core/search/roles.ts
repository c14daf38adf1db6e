/** The roles a search caller's token carries: to read documents (search, passages, objects) and to write them. */
export const READ_ROLE = 'search:read';
export const WRITE_ROLE = 'search:write';
