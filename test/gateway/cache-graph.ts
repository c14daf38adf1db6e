import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { buildSubgraph } from '../../edge/graphql/subgraph';
import { createGateway, type Gateway } from '../../gateway/server';
import type { ResponseCacheOptions } from '../../gateway/response-cache';
import { composeSupergraph } from '../../gateway/supergraph';
import { createRestApp } from '../../rest/shared/app';

/**
 * A small federated graph carrying @cacheControl hints, for the gateway's cache tests: `catalog`
 * owns the root fields (`counter` counts the times it ran, so a cached answer shows), `usage` adds
 * a private field to catalog's `Model`. Each gateway of `cacheGraph` has subgraphs of its own.
 */
const log = pino({ level: 'silent' });

const HEAD = `extend schema
  @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@composeDirective"])
  @link(url: "https://specs.platform.invalid/cacheControl/v1.0", import: ["@cacheControl"])
  @composeDirective(name: "@cacheControl")
enum CacheControlScope { PUBLIC PRIVATE }
directive @cacheControl(maxAge: Int, scope: CacheControlScope, inheritMaxAge: Boolean) on FIELD_DEFINITION | OBJECT | INTERFACE | UNION
`;
const CATALOG = `${HEAD}
type Query {
  models: [Model!]! @cacheControl(maxAge: 60)
  "Counts its calls; public for 60 s."
  counter(step: Int): Int! @cacheControl(maxAge: 60)
  "Public for 60 s but always fails."
  fails: String @cacheControl(maxAge: 60)
  me: Account @cacheControl(maxAge: 30, scope: PRIVATE)
  unhinted: String
}
type Mutation { bump: Int! }
type Model @key(fields: "id") @cacheControl(maxAge: 120) { id: ID! name: String! }
type Account { id: ID! }
`;
const USAGE = `${HEAD}
type Model @key(fields: "id") { id: ID! usage: Int @cacheControl(scope: PRIVATE) }
`;

export const cacheSupergraph = (): string =>
  composeSupergraph([
    { name: 'catalog', sdl: CATALOG },
    { name: 'usage', sdl: USAGE },
  ]);

export interface CacheGraph {
  url: string;
  /** Times each root field of this gateway's catalog subgraph ran. */
  calls: Record<string, number>;
  stop(): Promise<void>;
}

export async function cacheGraph(opts: { responseCache?: ResponseCacheOptions; supergraph?: string } = {}): Promise<CacheGraph> {
  const calls: Record<string, number> = {};
  const count = (name: string) => (calls[name] = (calls[name] ?? 0) + 1);
  const catalog = buildSubgraph(
    'catalog',
    CATALOG,
    {
      Query: {
        models: () => (count('models'), [{ id: 'm1', name: 'One' }]),
        counter: (_: unknown, { step }: { step?: number }) => count('counter') * (step ?? 1),
        fails: () => {
          count('fails');
          throw new Error('catalog failed');
        },
        me: () => (count('me'), { id: `account-${calls.me}` }),
        unhinted: () => (count('unhinted'), 'plain'),
      },
      Mutation: { bump: () => count('bump') },
    },
    log,
  );
  const usage = buildSubgraph('usage', USAGE, { Model: { __resolveReference: ({ id }: { id: string }) => ({ id, usage: 7 }) } }, log);
  const gateway: Gateway = await createGateway({
    supergraphSdl: opts.supergraph ?? cacheSupergraph(),
    targets: { catalog: { schema: catalog.schema }, usage: { schema: usage.schema } },
    log,
    responseCache: opts.responseCache,
  });
  const app = createRestApp([], { log, extra: [{ path: '/', router: gateway.router }], corsOrigins: ['https://app.example'] });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    async stop() {
      await gateway.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** An answer's status, the headers the cache tests read, and its JSON body. */
export interface Answer {
  status: number;
  body: { data?: Record<string, unknown> | null; errors?: { extensions?: { code?: string } }[] };
  cacheControl: string | null;
  vary: string | null;
  xCache: string | null;
  age: string | null;
  /** What a browser on another origin may read. */
  exposed: string | null;
}

const answer = async (r: Response): Promise<Answer> => ({
  status: r.status,
  body: (await r.json()) as Answer['body'],
  cacheControl: r.headers.get('cache-control'),
  vary: r.headers.get('vary'),
  xCache: r.headers.get('x-cache'),
  age: r.headers.get('age'),
  exposed: r.headers.get('access-control-expose-headers'),
});

export const post = (url: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(
    answer,
  );

export const get = (url: string, params: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const query = new URLSearchParams(
    Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  return fetch(`${url}/graphql?${query}`, { headers: { 'apollo-require-preflight': 'true', ...headers } }).then(answer);
};
