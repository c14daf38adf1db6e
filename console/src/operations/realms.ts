import { operation } from './operation';

export const REALM_FIELDS = 'realm name enabled accessTokenLifespan refreshTokenLifespan default version';
export const REALMS = operation(`query ConsoleRealms { adminRealms(first: 200, sort: "name") { items { ${REALM_FIELDS} } total } }`);
export const CREATE_REALM = operation(
  `mutation ConsoleCreateRealm($input: AdminCreateRealmInput!) { adminCreateRealm(input: $input) { ${REALM_FIELDS} } }`,
);
export const UPDATE_REALM = operation(`mutation ConsoleUpdateRealm($realm: ID!, $input: AdminUpdateRealmInput!, $version: Int) {
  adminUpdateRealm(realm: $realm, input: $input, version: $version) { ${REALM_FIELDS} }
}`);

export const USER_FIELDS = 'id username tenantId email emailVerified enabled locked roles createdAt version';
export const USERS = operation(`query ConsoleUsers($realm: ID!, $q: String, $after: String) {
  adminUsers(realm: $realm, q: $q, first: 25, after: $after) { items { ${USER_FIELDS} } nextCursor total }
}`);
export const USER = operation(
  `query ConsoleUser($realm: ID!, $username: String!) { adminUser(realm: $realm, username: $username) { ${USER_FIELDS} } }`,
);
export const CREATE_USER = operation(`mutation ConsoleCreateUser($realm: ID!, $input: AdminCreateUserInput!) {
  adminCreateUser(realm: $realm, input: $input) { id username }
}`);
export const UPDATE_USER =
  operation(`mutation ConsoleUpdateUser($realm: ID!, $username: String!, $input: AdminUpdateUserInput!, $version: Int) {
  adminUpdateUser(realm: $realm, username: $username, input: $input, version: $version) { ${USER_FIELDS} }
}`);
export const SET_PASSWORD = operation(`mutation ConsoleSetPassword($realm: ID!, $username: String!, $password: String!) {
  adminSetUserPassword(realm: $realm, username: $username, password: $password) { username sessionsEnded }
}`);
export const UNLOCK = operation(
  `mutation ConsoleUnlock($realm: ID!, $username: String!) { adminUnlockUser(realm: $realm, username: $username) { username locked } }`,
);
export const LOGOUT = operation(`mutation ConsoleLogoutUser($realm: ID!, $username: String!) {
  adminLogoutUser(realm: $realm, username: $username) { username sessionsEnded }
}`);

export const CLIENT_FIELDS =
  'clientId tenantId enabled public roles scopes redirectUris postLogoutRedirectUris webOrigins createdAt version';
export const CLIENTS = operation(`query ConsoleClients($realm: ID!, $q: String, $after: String) {
  adminClients(realm: $realm, q: $q, first: 25, after: $after) { items { ${CLIENT_FIELDS} } nextCursor total }
}`);
export const CLIENT = operation(
  `query ConsoleClient($realm: ID!, $clientId: String!) { adminClient(realm: $realm, clientId: $clientId) { ${CLIENT_FIELDS} } }`,
);
export const CREATE_CLIENT = operation(`mutation ConsoleCreateClient($realm: ID!, $input: AdminCreateClientInput!) {
  adminCreateClient(realm: $realm, input: $input) { clientId public clientSecret }
}`);
export const UPDATE_CLIENT =
  operation(`mutation ConsoleUpdateClient($realm: ID!, $clientId: String!, $input: AdminUpdateClientInput!, $version: Int) {
  adminUpdateClient(realm: $realm, clientId: $clientId, input: $input, version: $version) { ${CLIENT_FIELDS} }
}`);
export const REGENERATE = operation(`mutation ConsoleRegenerateSecret($realm: ID!, $clientId: String!) {
  adminRegenerateClientSecret(realm: $realm, clientId: $clientId) { clientId clientSecret }
}`);

export const SESSIONS = operation(`query ConsoleSessions($realm: ID!, $username: String, $after: String) {
  adminSessions(realm: $realm, username: $username, first: 25, after: $after, sort: "-createdAt") {
    items { id username authTime createdAt expiresAt } nextCursor total
  }
}`);
export const END = operation(
  `mutation ConsoleEndSession($realm: ID!, $id: ID!) { adminEndSession(realm: $realm, id: $id) { id sessionsEnded } }`,
);
