import { join } from 'node:path';
import { z } from 'zod';
import { openTokenCore, pgRevocationReader, sqliteRevocationReader, type TokenCore } from '../../core/token';
import { TOKEN_PG_MIGRATIONS } from '../../core/token/postgres/schema';
import { hashingPoolOptions } from '../../core/token/admission';
import type { KeyGenerator } from '../../core/token/keys';
import type { SecretHasher } from '../../core/token/secrets';
import type { TokenService } from '../../core/token/service';
import { TOKEN_PREFIX } from '../../rest/token/prefix';
import { readSchemaFile } from '../../edge/graphql/sdl';
import { defineService } from '../shared/module';
import { tokenBootstrap } from './bootstrap';
import { tokenCommands } from './cli';
import { tokenStores } from './stores';

// The faces (REST routes, subgraph resolvers, REST client) load on first use: a CLI command opens the core alone.
const rest = () => require('../../rest/token') as typeof import('../../rest/token');
const adminRest = () => require('../../rest/token/admin') as typeof import('../../rest/token/admin');
const subgraph = () => require('../../subgraphs/token') as typeof import('../../subgraphs/token');
const client = () => require('../../clients/token') as typeof import('../../clients/token');
const remoteRevocations = () => require('../../clients/token/revocations') as typeof import('../../clients/token/revocations');

const count = (fallback: number) => z.coerce.number().int().positive().max(1_000_000).default(fallback);

/** The token service's environment variables. */
const Settings = z.object({
  /**
   * Wrong passwords (or slow-hashed client secrets) for one account from one caller address before
   * that address is refused for it; from all addresses together before everyone is; the window
   * both are counted in, so the longest a lock lasts (core/token/lockout.ts, docs/token-security.md).
   */
  LOCKOUT_THRESHOLD: count(5),
  LOCKOUT_ACCOUNT_THRESHOLD: count(100),
  LOCKOUT_SECONDS: count(900),
  /** Failed client or user authentications allowed per caller address per minute (429 past it). */
  AUTH_FAILURES_PER_MINUTE: count(30),
  /** Failed password checks per realm per minute; past it, addresses with failures of their own get 429 before any hashing. */
  AUTH_REALM_FAILURES_PER_MINUTE: count(100),
  /** Slow hashes (password checks) one process runs at once; one caller address gets one of them. */
  AUTH_HASH_CONCURRENCY: count(1),
  /** How long single sign-on (the login page's session cookie) lasts after a person typed their password. */
  SSO_SESSION_SECONDS: count(36_000),
});

export interface TokenModuleOptions {
  /** Cheaper crypto for tests; real scrypt and RSA key generation by default. */
  hasher?: SecretHasher;
  generateKey?: KeyGenerator;
}

/** OAuth tokens, introspection, JWKS and discovery, under `/auth/api/v1`; the `token` subgraph. */
export const createTokenModule = (opts: TokenModuleOptions = {}) =>
  defineService<TokenCore, typeof Settings>({
    name: 'token',
    title: 'Token service',
    prefix: TOKEN_PREFIX,
    // Keycloak's audience for its own account endpoints (userinfo).
    audience: 'account',
    config: Settings,
    migrations: TOKEN_PG_MIGRATIONS,
    open: (deps, { admin }) => {
      const { config, fairPool } = deps;
      return openTokenCore({
        stores: tokenStores(deps, { admin }),
        publicUrl: config.PUBLIC_URL,
        clock: deps.clock,
        lockout: {
          threshold: config.LOCKOUT_THRESHOLD,
          accountThreshold: config.LOCKOUT_ACCOUNT_THRESHOLD,
          seconds: config.LOCKOUT_SECONDS,
        },
        authFailuresPerMinute: config.AUTH_FAILURES_PER_MINUTE,
        realmFailuresPerMinute: config.AUTH_REALM_FAILURES_PER_MINUTE,
        pool: fairPool('token.hashing', hashingPoolOptions(config.AUTH_HASH_CONCURRENCY)),
        audience: deps.audiences,
        hasher: opts.hasher,
        generateKey: opts.generateKey,
        metrics: deps.metrics,
        revoked: deps.revoked,
        ssoSessionSeconds: config.SSO_SESSION_SECONDS,
        audit: deps.audit,
      });
    },
    rest: (core, { config }) => rest().tokenRest(core.service, config.PUBLIC_URL),
    admin: (core) => adminRest().tokenAdminFace(core.adminApi),
    subgraph: {
      sdl: () => readSchemaFile('token/token.graphql'),
      resolvers: (core, edge) => subgraph().tokenSubgraphResolvers(core, edge),
    },
    commands: tokenCommands,
    jobs: [{ name: 'prune expired sessions and throttle windows', everyMs: 10 * 60_000, run: (core) => core.admin.prune() }],
    bootstrap: tokenBootstrap,
    client: (opts) => client().tokenClient(opts),
    health: (at, signal) => ('instance' in at ? at.instance.service : (at.client as TokenService)).health({}, { signal }),
    // A process without the token service reads the revoked-sessions list from the token store when it
    // shares it (DATABASE_URL, or the data directory holding token.db), else polls AUTH_ISSUER_URL.
    // A process without the token service learns the origins clients registered from its public list.
    webOriginsReader: ({ config }) => {
      const token = client().tokenClient({ baseUrl: config.AUTH_ISSUER_URL });
      return () => token.webOrigins();
    },
    revocationReader: async ({ config, postgres }) =>
      (await (config.DATABASE_URL
        ? postgres && pgRevocationReader(postgres)
        : sqliteRevocationReader(join(config.PLATFORM_DATA_DIR, 'token.db')))) ??
      remoteRevocations().remoteRevocations(client().tokenClient({ baseUrl: config.AUTH_ISSUER_URL })),
  });
