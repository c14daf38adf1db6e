import { tokenAdminClient } from '../../clients/token/admin';
import type { Admin } from '../../core/shared/admin/access';
import type { Ctx } from '../../core/shared/context';
import type { TokenCore } from '../../core/token';
import type { TokenAdminApi } from '../../core/token/admin-api';
import { cliCtx, everyItem, LIST_FLAGS, versionFlag, yesNo } from '../shared/admin-cli';
import { listFlag, UsageError } from '../shared/cli';
import type { CliCommand } from '../shared/module';

type Flags = Record<string, string | undefined>;

const seconds = (v: string | undefined, name: string) => {
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
const browserFlags = (f: Flags) => ({
  redirect_uris: uriList(f['redirect-uris']),
  post_logout_redirect_uris: uriList(f['post-logout-redirect-uris']),
  web_origins: uriList(f['web-origins']),
});

/**
 * `platform realm|client|user|session <verb>`: each prints one JSON value, the admin API's view
 * (core/token/admin-api/views.ts), whether `api` is the data directory's core (acting as the local
 * administrator) or a remote platform's admin API (`--url`): the same calls either way.
 */
export async function adminCommand(
  api: TokenAdminApi,
  ctx: Ctx<Admin>,
  words: string[],
  f: Flags,
  readSecret: () => Promise<string>,
): Promise<unknown> {
  const [noun, verb, target] = words;
  const key = `${noun} ${verb ?? ''}`;
  /** `--realm`, else the default realm (for a realm administrator: the one realm it sees). */
  const realmOf = async (): Promise<string> => {
    if (f.realm) return f.realm;
    const realms = await everyItem((ask) => api.listRealms(ask, ctx), {});
    const found = realms.find((r) => r.default) ?? (realms.length === 1 ? realms[0] : undefined);
    if (!found) throw new UsageError('--realm is required');
    return found.realm;
  };
  /** A realm command's realm: a word or --realm. */
  const namedRealm = () => need(target ?? f.realm, 'realm');
  const client = async () => ({ realm: await realmOf(), client_id: need(f['client-id'], 'client-id') });
  const user = async () => ({ realm: await realmOf(), username: need(f.username, 'username') });
  const version = versionFlag(f.version);
  switch (key) {
    case 'realm create':
      return api.createRealm(
        {
          name: need(f.name, 'name'),
          access_token_lifespan: seconds(f['access-ttl'], 'access-ttl'),
          refresh_token_lifespan: seconds(f['refresh-ttl'], 'refresh-ttl'),
        },
        ctx,
      );
    case 'realm list':
      return everyItem((ask) => api.listRealms({ ...ask, name: f.name, enabled: yesNo(f.enabled, 'enabled') }, ctx), f);
    case 'realm get':
      return api.getRealm({ realm: namedRealm() }, ctx);
    case 'realm update':
      return api.updateRealm(
        {
          realm: namedRealm(),
          version,
          name: f.name,
          access_token_lifespan: seconds(f['access-ttl'], 'access-ttl'),
          refresh_token_lifespan: seconds(f['refresh-ttl'], 'refresh-ttl'),
        },
        ctx,
      );
    case 'realm disable':
    case 'realm enable':
      return api.updateRealm({ realm: namedRealm(), version, enabled: verb === 'enable' }, ctx);
    case 'realm default':
      return api.setDefaultRealm({ realm: namedRealm() }, ctx);
    case 'realm rotate-key':
      return api.rotateRealmKey({ realm: target ?? (await realmOf()) }, ctx);
    case 'client create':
      return api.createClient(
        {
          ...(await client()),
          public: f.public ? true : undefined,
          tenant_id: f.tenant,
          roles: listFlag(f.roles),
          scopes: listFlag(f.scopes),
          ...browserFlags(f),
        },
        ctx,
      );
    case 'client update':
      return api.updateClient(
        { ...(await client()), version, tenant_id: f.tenant, roles: uriList(f.roles), scopes: listFlag(f.scopes), ...browserFlags(f) },
        ctx,
      );
    case 'client list':
      return everyItem(
        async (ask) =>
          api.listClients(
            { ...ask, realm: await realmOf(), q: f.q, enabled: yesNo(f.enabled, 'enabled'), public: f.public ? true : undefined },
            ctx,
          ),
        f,
      );
    case 'client get':
      return api.getClient(await client(), ctx);
    case 'client disable':
    case 'client enable':
      return api.updateClient({ ...(await client()), version, enabled: verb === 'enable' }, ctx);
    case 'client rotate-secret':
      return api.regenerateClientSecret(await client(), ctx);
    case 'user create':
      return api.createUser(
        {
          ...(await user()),
          password: f.password ?? (await readSecret()),
          tenant_id: f.tenant,
          roles: listFlag(f.roles),
          email: f.email,
        },
        ctx,
      );
    case 'user list':
      return everyItem(
        async (ask) => api.listUsers({ ...ask, realm: await realmOf(), q: f.q, enabled: yesNo(f.enabled, 'enabled'), role: f.role }, ctx),
        f,
      );
    case 'user get':
      return api.getUser(await user(), ctx);
    case 'user update':
      // --email '' takes the address away.
      return api.updateUser(
        { ...(await user()), version, roles: uriList(f.roles), tenant_id: f.tenant, email: f.email === '' ? null : f.email },
        ctx,
      );
    case 'user disable':
    case 'user enable':
      return api.updateUser({ ...(await user()), version, enabled: verb === 'enable' }, ctx);
    case 'user set-password':
      return api.setUserPassword({ ...(await user()), password: f.password ?? (await readSecret()) }, ctx);
    case 'user unlock':
      return api.unlockUser(await user(), ctx);
    case 'user logout':
      return api.logoutUser(await user(), ctx);
    case 'session list':
      return everyItem(async (ask) => api.listSessions({ ...ask, realm: await realmOf(), username: f.username }, ctx), f);
    case 'session end':
      return api.endSession({ realm: await realmOf(), id: need(f.id ?? target, 'id') }, ctx);
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
  flags: { values: [...values, ...LIST_FLAGS], switches },
  run: (core, words, flags, io) => adminCommand(core.adminApi, cliCtx(), [name, ...words], flags, io.readSecret),
  // Over HTTP the administrator is the token's: the ctx is only for the core in process.
  remote: (conn, words, flags, io) => adminCommand(tokenAdminClient(conn), cliCtx(), [name, ...words], flags, io.readSecret),
});

/** The token service's part of the `platform` command. */
export const tokenCommands: CliCommand<TokenCore>[] = [
  command(
    'realm',
    ['name', 'access-ttl', 'refresh-ttl', 'realm', 'enabled', 'version'],
    [
      'platform realm create --name N [--access-ttl S] [--refresh-ttl S]',
      'platform realm list [--name N] [--enabled true|false] | get <realm> | disable <realm> | enable <realm> | default <realm>',
      'platform realm update <realm> [--name N] [--access-ttl S] [--refresh-ttl S] [--version V] | rotate-key [<realm>]',
    ],
  ),
  command(
    'client',
    [
      'client-id',
      'realm',
      'tenant',
      'roles',
      'scopes',
      'redirect-uris',
      'post-logout-redirect-uris',
      'web-origins',
      'q',
      'enabled',
      'version',
    ],
    [
      'platform client create --client-id ID [--realm R] [--tenant T] [--roles r1,r2] [--scopes s1,s2]',
      '       [--public] [--redirect-uris u1,u2] [--post-logout-redirect-uris u1] [--web-origins o1,o2]',
      '       (--public: no secret, a browser or native app that signs people in with PKCE)',
      'platform client update --client-id ID [--realm R] [--roles ...] [--scopes ...] [--tenant T] [--redirect-uris ...]',
      '       [--post-logout-redirect-uris ...] [--web-origins ...] [--version V]',
      'platform client list [--realm R] [--q TEXT] [--enabled true|false] [--public]',
      'platform client get | disable | enable | rotate-secret --client-id ID [--realm R]',
    ],
    ['public'],
  ),
  command(
    'user',
    ['username', 'password', 'realm', 'tenant', 'roles', 'email', 'q', 'enabled', 'role', 'version'],
    [
      'platform user create --username U [--password P] [--realm R] [--tenant T] [--roles r1,r2] [--email E]',
      'platform user list [--realm R] [--q TEXT] [--enabled true|false] [--role R]',
      'platform user get | disable | enable | unlock --username U [--realm R]',
      'platform user update --username U [--realm R] [--roles r1,r2] [--tenant T] [--email E] [--version V]',
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
