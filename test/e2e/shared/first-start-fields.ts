/** The fields of the first start's bootstrap.json (its maker's: the secrets too), sorted. */
export const FIRST_START_FIELDS = [
  'admin_password',
  'admin_username',
  'api_key',
  'client_id',
  'client_secret',
  'password',
  'realm',
  'tenant_id',
  'username',
];
