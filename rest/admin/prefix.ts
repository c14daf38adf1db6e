export const ADMIN_PREFIX = '/admin/api/v1';
