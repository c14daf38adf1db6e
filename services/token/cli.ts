import { listFlag, UsageError } from '../shared/cli';
import type { TokenCore } from '../../core/token';
import type { TokenAdmin } from '../../core/token/admin';
import type { CliCommand } from '../shared/module';

const int = (v: string | undefined, name: string) => {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} takes a whole number of seconds`);
  return Number(v);
};
const need = (v: string | undefined, name: string) => {
  if (!v) throw new UsageError(`--${name} is required`);
  return v;
};

/** A list flag given empty (`--web-origins ''`) clears the list; one not given leaves it. */
const uriList = (v: string | undefined) => (v === undefined ? undefined : (listFlag(v) ?? []));

/** The browser settings of a client (`client create`, `client update`). */
const browserFlags = (f: Record<string, string | undefined>) => ({
  redirectUris: uriList(f['redirect-uris']),
  postLogoutRedirectUris: uriList(f['post-logout-redirect-uris']),
  webOrigins: uriList(f['web-origins']),
});

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * DECISIONS: the command prints snake_case JSON (`client_id`, `tenant_id`, `realm`), as the REST
 * contract does; the core's views are camelCase.
 */
export function present(value: unknown, noun: string): unknown {
  if (Array.isArray(value)) return value.map((v) => present(v, noun));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const key = k === 'realmId' || (noun === 'realm' && k === 'id') ? 'realm' : snake(k);
    out[key] = v;
  }
  return out;
}

/** `platform realm|client|user <verb>`: each prints one JSON value. */
export async function adminCommand(
  admin: TokenAdmin,
  words: string[],
  f: Record<string, string | undefined>,
  readSecret: () => Promise<string>,
): Promise<unknown> {
  const [noun, verb, target] = words;
  const key = `${noun} ${verb ?? ''}`;
  switch (key) {
    case 'realm create':
      return admin.createRealm({
        name: f.name,
        accessTokenLifespan: int(f['access-ttl'], 'access-ttl'),
        refreshTokenLifespan: int(f['refresh-ttl'], 'refresh-ttl'),
      });
    case 'realm list':
      return admin.listRealms();
    case 'realm disable':
      return admin.setRealmEnabled(need(f.realm ?? target, 'realm'), false);
    case 'realm enable':
      return admin.setRealmEnabled(need(f.realm ?? target, 'realm'), true);
    case 'realm default':
      return admin.setDefaultRealm(need(f.realm ?? target, 'realm'));
    case 'realm rotate-key':
      return admin.rotateRealmKey(f.realm ?? target);
    case 'client create': {
      const input = {
        realm: f.realm,
        clientId: need(f['client-id'], 'client-id'),
        tenantId: f.tenant,
        roles: listFlag(f.roles),
        scopes: listFlag(f.scopes),
        ...browserFlags(f),
      };
      return f.public ? admin.createPublicClient(input) : admin.createClient(input);
    }
    case 'client update':
      return admin.updateClient(f.realm, need(f['client-id'], 'client-id'), browserFlags(f));
    case 'client list':
      return admin.listClients(f.realm);
    case 'client disable':
      return admin.setClientEnabled(f.realm, need(f['client-id'], 'client-id'), false);
    case 'client enable':
      return admin.setClientEnabled(f.realm, need(f['client-id'], 'client-id'), true);
    case 'client rotate-secret':
      return admin.rotateClientSecret(f.realm, need(f['client-id'], 'client-id'));
    case 'user create':
      return admin.createUser({
        realm: f.realm,
        username: need(f.username, 'username'),
        password: f.password ?? (await readSecret()),
        tenantId: f.tenant,
        roles: listFlag(f.roles),
        email: f.email,
      });
    case 'user list':
      return admin.listUsers(f.realm);
    case 'user disable':
      return admin.setUserEnabled(f.realm, need(f.username, 'username'), false);
    case 'user enable':
      return admin.setUserEnabled(f.realm, need(f.username, 'username'), true);
    case 'user set-password':
      return admin.setPassword(f.realm, need(f.username, 'username'), f.password ?? (await readSecret()));
    case 'user logout':
      return admin.logout(f.realm, need(f.username, 'username'));
    case 'session list':
      return admin.listSessions(f.realm, f.username);
    case 'session end':
      return admin.endBrowserSession(f.realm, need(f.id ?? target, 'id'));
    default:
      throw new UsageError(`unknown command '${key.trim()}'`);
  }
}

const command = (
  name: 'realm' | 'client' | 'user' | 'session',
  values: string[],
  usage: string[],
  switches: string[] = [],
): CliCommand<TokenCore> => ({
  name,
  usage,
  flags: { values, switches },
  run: async (core, words, flags, io) => present(await adminCommand(core.admin, [name, ...words], flags, io.readSecret), name),
});

/** The token service's part of the `platform` command. */
export const tokenCommands: CliCommand<TokenCore>[] = [
  command(
    'realm',
    ['name', 'access-ttl', 'refresh-ttl', 'realm'],
    [
      'platform realm create [--name N] [--access-ttl S] [--refresh-ttl S]',
      'platform realm list | disable <id> | enable <id> | default <id> | rotate-key [<id>]',
    ],
  ),
  command(
    'client',
    ['client-id', 'realm', 'tenant', 'roles', 'scopes', 'redirect-uris', 'post-logout-redirect-uris', 'web-origins'],
    [
      'platform client create --client-id ID [--realm R] [--tenant T] [--roles r1,r2] [--scopes s1,s2]',
      '       [--public] [--redirect-uris u1,u2] [--post-logout-redirect-uris u1] [--web-origins o1,o2]',
      '       (--public: no secret, a browser or native app that signs people in with PKCE)',
      'platform client update --client-id ID [--realm R] [--redirect-uris ...] [--post-logout-redirect-uris ...] [--web-origins ...]',
      'platform client list [--realm R] | disable --client-id ID | enable --client-id ID | rotate-secret --client-id ID',
    ],
    ['public'],
  ),
  command(
    'user',
    ['username', 'password', 'realm', 'tenant', 'roles', 'email'],
    [
      'platform user create --username U [--password P] [--realm R] [--tenant T] [--roles r1,r2] [--email E]',
      'platform user list [--realm R] | disable --username U | enable --username U',
      "platform user set-password --username U [--password P] [--realm R]   (ends the user's sessions)",
      'platform user logout --username U [--realm R]                        ends every session of the user',
    ],
  ),
  command(
    'session',
    ['realm', 'username', 'id'],
    [
      'platform session list [--realm R] [--username U]     single sign-on sessions of the login page, open ones',
      'platform session end <id> [--realm R]                 signs that browser out of every application',
    ],
  ),
];
