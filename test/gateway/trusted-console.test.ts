import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Client, createRequest, fetchExchange, stringifyDocument } from '@urql/core';
import pino from 'pino';
import { bearerFor } from '../../clients/admin/sign-in';
import { apolloPlanner } from '../../gateway/apollo-planner';
import { consoleBuildDir } from '../../gateway/console';
import { parseManifestNow } from '../../gateway/trusted/manifest';
import { readSupergraph } from '../../gateway/supergraph';
import { ROOT, startInTemp, type Started } from '../e2e/shared/server';
import { run, socketClient } from '../e2e/shared/subscription-wire';

/**
 * The web console in a graph that runs only trusted documents: the operations it declares
 * (console/src/operations/, read here from the sources) are exactly those `npm run build` wrote
 * into dist/console/trusted-documents.json, as urql sends them, each valid against the graph's API
 * schema; no file of the console writes an operation anywhere else. A platform started with
 * GRAPHQL_TRUSTED_DOCUMENTS=refuse then runs them, sent as the console sends them (urql's own
 * client, the upload's raw POST), lists them as its built-in `console` app, which no administrator
 * loads or removes, and still refuses an operation of nobody's.
 */
const SRC = join(ROOT, 'console', 'src');
const OPERATIONS = join(SRC, 'operations');
const MANIFEST = join(consoleBuildDir(), 'trusted-documents.json');

interface Listed {
  id: string;
  body: string;
  name: string;
  type: string;
}

/** Every text declared in console/src/operations (required by path: the sources, not the build). */
function declared(): readonly string[] {
  for (const f of readdirSync(OPERATIONS).filter((f) => f.endsWith('.ts') && f !== 'index.ts')) require(join(OPERATIONS, f));
  return (require(join(OPERATIONS, 'operation.ts')) as { declaredOperations(): readonly string[] }).declaredOperations();
}
/** The start of a GraphQL operation in a string: a keyword, a name, variables, a selection set; or a bare selection set. */
const OPERATION_TEXT = /[`'"]\s*(?:(?:query|mutation|subscription)(?:\s+[A-Za-z_]\w*)?\s*(?:\([^)]*\)\s*)?|)\{\s*[A-Za-z_]\w*\s*[({\s}]/;
const wire = (text: string) => stringifyDocument(createRequest(text, {}).query);
const named = (text: string) => /\b(?:query|mutation|subscription)\s+([A-Za-z_]\w*)/.exec(text)?.[1];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

const texts = declared();
const manifest = existsSync(MANIFEST)
  ? (JSON.parse(readFileSync(MANIFEST, 'utf8')) as { format: string; operations: Listed[] })
  : undefined;
const byName = (name: string) => {
  const text = texts.find((t) => named(t) === name);
  if (!text) throw new Error(`no console operation ${name}`);
  return text;
};

describe("the console's manifest", () => {
  it('is built (npm run build writes it next to the console)', () => {
    expect(manifest?.format).toBe('apollo-persisted-query-manifest');
  });

  it('lists every operation the console declares, as urql sends it, and nothing else', () => {
    expect(texts.length).toBeGreaterThan(40);
    const expected = texts.map((t) => ({ body: wire(t), name: named(t) }));
    expect(manifest!.operations.map((o) => ({ body: o.body, name: o.name }))).toEqual(expected);
  });

  it('holds documents that each validate against the API schema', () => {
    const schema = apolloPlanner(readSupergraph(), pino({ level: 'silent' })).apiSchema;
    const { documents } = parseManifestNow(manifest, schema);
    expect(documents).toHaveLength(texts.length);
    expect(new Set(documents.map((d) => d.name)).size).toBe(texts.length);
  });

  it('misses none: no file of the console writes an operation outside console/src/operations', () => {
    const elsewhere = sourceFiles(SRC)
      .filter((f) => !f.startsWith(OPERATIONS))
      .filter((f) => OPERATION_TEXT.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    expect(elsewhere).toEqual([]);
    const inSources = sourceFiles(OPERATIONS).flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/\b(?:query|mutation|subscription)\s+(Console\w+)/g)].map((m) => m[1]),
    );
    expect(new Set(manifest!.operations.map((o) => o.name))).toEqual(new Set(inSources));
  });
});

describe('a platform in refuse mode', () => {
  let p: Started;
  let admin: string;
  let user: string;
  beforeAll(async () => {
    p = await startInTemp('all', { GRAPHQL_TRUSTED_DOCUMENTS: 'refuse' });
    const boot = p.bootstrap!.values;
    admin = await bearerFor(p.url, { kind: 'password', realm: boot.realm, username: boot.admin_username, password: boot.admin_password });
    user = await bearerFor(p.url, { kind: 'client', realm: boot.realm, clientId: boot.client_id, clientSecret: boot.client_secret });
  }, 90_000);
  afterAll(() => p?.stop());

  /** urql's client as the console builds it (client.ts): POST, the person's bearer. */
  const urql = (bearer: string) =>
    new Client({
      url: `${p.url}/graphql`,
      preferGetMethod: false,
      requestPolicy: 'network-only',
      fetchOptions: { headers: { authorization: `Bearer ${bearer}` } },
      exchanges: [fetchExchange],
    });
  const post = async (body: unknown, bearer = admin) => {
    const res = await fetch(`${p.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      body: (await res.json()) as { data?: any; errors?: { message: string; extensions?: { code?: string } }[] },
    };
  };

  it("runs the console's pages' queries as urql sends them", async () => {
    const client = urql(admin);
    for (const [name, variables] of [
      ['ConsoleViewer', {}],
      ['ConsoleCounts', {}],
      ['ConsolePlatformStatus', { first: 20 }],
      ['ConsoleRealms', {}],
      ['ConsoleModels', { active: true }],
      ['ConsoleModelKeys', {}],
      ['ConsoleUsage', { from: '2026-01-01', to: '2026-01-31' }],
      ['ConsoleAuditEvents', {}],
      ['ConsoleMySessions', {}],
      ['ConsoleTenantDocuments', {}],
    ] as const) {
      const result = await client.query(byName(name), variables).toPromise();
      expect([name, result.error?.message]).toEqual([name, undefined]);
      expect(result.data).toEqual(expect.any(Object));
    }
  });

  it('runs its mutations, and the upload sent as upload.ts sends it', async () => {
    const created = await urql(admin)
      .mutation(byName('ConsoleCreateRealm'), { input: { name: 'console-trusted' } })
      .toPromise();
    expect(created.error).toBeUndefined();
    expect(created.data.adminCreateRealm).toEqual(expect.objectContaining({ name: 'console-trusted', enabled: true }));
    const upload = byName('ConsoleUpload');
    const input = { fileName: 'note.txt', contentBase64: Buffer.from('A note for the console.').toString('base64') };
    const uploaded = await post({ operationName: 'ConsoleUpload', query: wire(upload), variables: { input } }, user);
    expect(uploaded).toEqual({ status: 200, body: { data: { uploadDocument: expect.objectContaining({ fileName: 'note.txt' }) } } });
    const search = await urql(user).query(byName('ConsoleDocumentSearch'), { query: 'note' }).toPromise();
    expect(search.error).toBeUndefined();
  });

  it('runs its streamed answer over graphql-ws, as its subscription exchange sends it (the text urql printed)', async () => {
    const client = socketClient(p.url, { authorization: `Bearer ${user}`, 'api-key': p.bootstrap!.values.api_key });
    try {
      const { results, error } = await run(client, wire(byName('ConsoleAnswer')), { input: { query: 'What does the note say?' } });
      expect(error).toBeUndefined();
      expect(results.at(-1)).toEqual({ data: { answerStream: expect.objectContaining({ finishReason: expect.any(String) }) } });
    } finally {
      await client.dispose();
    }
  });

  it('runs them by id too, and still refuses an operation no list holds', async () => {
    const viewer = manifest!.operations.find((o) => o.name === 'ConsoleViewer')!;
    expect((await post({ documentId: `sha256:${viewer.id}` })).body.data.viewer).toEqual(
      expect.objectContaining({ roles: expect.any(Array) }),
    );
    // The console's text with one field more is another document: refused.
    const refused = await post({ query: wire(byName('ConsoleViewer')).replace('username', 'username email') });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.map((e) => e.extensions?.code)).toEqual(['PERSISTED_QUERY_NOT_LISTED']);
    const raw = await urql(admin).query('query Mine { viewer { username } }', {}).toPromise();
    expect(raw.error?.graphQLErrors.map((e) => e.extensions.code)).toEqual(['PERSISTED_QUERY_NOT_LISTED']);
  });

  it('lists the console as built in, which no administrator loads or removes', async () => {
    const admin_ = { authorization: `Bearer ${admin}` };
    const list = await fetch(`${p.url}/admin/api/v1/graphql/documents`, { headers: admin_ });
    expect(await list.json()).toEqual({
      items: [
        {
          app: 'console',
          format: 'apollo-persisted-query-manifest',
          documents: texts.length,
          loaded_at: expect.any(String),
          built_in: true,
        },
      ],
    });
    const one = manifest!.operations[0];
    for (const method of ['POST', 'DELETE']) {
      const res = await fetch(`${p.url}/admin/api/v1/graphql/documents/console`, {
        method,
        headers: { ...admin_, 'content-type': 'application/json' },
        body: method === 'POST' ? JSON.stringify({ [`sha256:${one.id}`]: one.body }) : undefined,
      });
      expect([method, res.status, await res.json()]).toEqual([
        method,
        409,
        { detail: expect.stringMatching(/'console' is the platform's built-in list/) },
      ]);
    }
  });
});
