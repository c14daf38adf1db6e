import { createChatModule } from '../../services/chat';
import pino from 'pino';
import { noCredentials, type Credentials } from '../../core/shared/auth/credentials';
import { createTokenVerifier, issuerBaseFor, type TokenVerifier } from '../../core/shared/auth/verifier';
import type { Ctx } from '../../core/shared/context';
import { callsFor, type CallOf, type SubgraphEdge } from '../../edge/graphql/calls';
import type { GraphContext } from '../../edge/graphql/context';
import type { Clock } from '../../core/shared/clock';
import { openTokenCore, type TokenCore } from '../../core/token';
import { sqliteTokenStores } from '../../core/token/sqlite';
import { createRestApp } from '../../rest/shared/app';
import { tokenRest } from '../../rest/token';
import { createModelsModule } from '../../services/models';
import { createSearchModule } from '../../services/search';
import { createTokenModule } from '../../services/token';
import { buildSubgraph } from '../../edge/graphql/subgraph';
import { readSchemaFile } from '../../edge/graphql/sdl';
import { tokenResolvers } from '../../subgraphs/token';
import { fastHasher, pooledKeys } from './crypto-fixtures';

export { fastHasher, pooledKeys } from './crypto-fixtures';

export const PUBLIC_URL = 'http://platform.test';

/** The registry's services with cheap crypto, for tests that start the platform in process. */
export const testModules = () => [
  createTokenModule({ hasher: fastHasher, generateKey: pooledKeys }),
  createSearchModule(),
  createModelsModule(),
  createChatModule(),
];

/** A clock tests can move. */
export function testClock(start = Date.UTC(2026, 0, 1)): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

export interface TokenFixture {
  core: TokenCore;
  clock: ReturnType<typeof testClock>;
  realm: string;
  otherRealm: string;
  client: { client_id: string; client_secret: string };
  user: { username: string; password: string };
  app: ReturnType<typeof createRestApp>;
}

export interface FixtureOptions {
  lockout?: { threshold: number; seconds: number };
  bodyLimitBytes?: number;
  authFailuresPerMinute?: number;
  trustProxy?: false | string[];
}

/** An in-memory token core with cheap crypto (the same code, smaller parameters). */
export const testTokenCore = (clock: Clock, opts: FixtureOptions = {}) =>
  openTokenCore({
    stores: sqliteTokenStores(':memory:'),
    publicUrl: PUBLIC_URL,
    clock,
    lockout: opts.lockout,
    authFailuresPerMinute: opts.authFailuresPerMinute,
    audience: ['account', 'search'],
    hasher: fastHasher,
    generateKey: pooledKeys,
  });

/**
 * An in-memory token service with a realm, a confidential client (roles search:read, search:write),
 * a user, and a second realm, behind the real REST app.
 */
export async function tokenFixture(opts: FixtureOptions = {}): Promise<TokenFixture> {
  const clock = testClock();
  const core = await testTokenCore(clock, opts);
  const realm = (await core.admin.createRealm({ name: 'main' })).id;
  const otherRealm = (await core.admin.createRealm({ name: 'other' })).id;
  const c = await core.admin.createClient({
    realm,
    clientId: 'svc-a',
    roles: ['search:read', 'search:write'],
    scopes: ['openid', 'profile', 'email', 'search'],
  });
  await core.admin.createUser({
    realm,
    username: 'alice',
    password: 'correct horse battery',
    roles: ['search:read'],
    tenantId: 'tenant-a',
  });
  const verifier = createTokenVerifier({ issuerBase: issuerBaseFor(PUBLIC_URL), keys: core.keySource, clock });
  const app = createRestApp([tokenRest(core.service, PUBLIC_URL)], {
    log: pino({ level: 'silent' }),
    bodyLimitBytes: opts.bodyLimitBytes,
    verifier,
    trustProxy: opts.trustProxy,
  });
  return {
    core,
    clock,
    realm,
    otherRealm,
    app,
    client: { client_id: 'svc-a', client_secret: c.client_secret },
    user: { username: 'alice', password: 'correct horse battery' },
  };
}

/** A subgraph's edge as the platform gives it: its callers established as `credentials` declares, with `verifier`. */
export const testEdge = <C>(name: string, credentials: Credentials<C>, verifier: TokenVerifier, audience?: string): SubgraphEdge<C> => ({
  callOf: callsFor(name, credentials, { verifier, audience }),
  callsFor: (other, otherAudience) => callsFor(`${name} ${other.kind}`, other, { verifier, audience: otherAudience }),
});

/** The token subgraph over a fixture's core, as the platform builds it (its viewer verified with the fixture's clock). */
export const tokenSubgraph = (fx: Pick<TokenFixture, 'core' | 'clock'>, log = pino({ level: 'silent' })) => {
  const verifier = createTokenVerifier({ issuerBase: issuerBaseFor(PUBLIC_URL), keys: fx.core.keySource, clock: fx.clock });
  return buildSubgraph(
    'token',
    readSchemaFile('token/token.graphql'),
    tokenResolvers(fx.core.service, testEdge('token', noCredentials, verifier)),
    log,
  );
};

/** A GraphQL request's context with these headers (lower-case names), as the transports build it. */
export const graphContext = (headers: Record<string, string | undefined> = {}): GraphContext => ({
  headers,
  callers: new Map(),
  memo: new Map(),
});

/** A resolver's call context with a fixed caller: for subgraph tests that need no credentials. */
export const fixedCallOf =
  <C>(caller: C): CallOf<C> =>
  async () =>
    ({ caller }) as Ctx<C>;
