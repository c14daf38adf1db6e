import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApolloClient, ApolloLink, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { print, printSchema } from 'graphql';
import pino from 'pino';
import { apolloPlanner } from '../../gateway/apollo-planner';
import { readSupergraph } from '../../gateway/supergraph';
import { platformCli, run, startInTemp, type Started } from '../e2e/shared/server';
import { eventually } from '../shared/wait';

/**
 * Trusted documents made by the clients' own tools, against a platform in refuse mode: GraphQL Code
 * Generator's client preset (`persistedDocuments: true`, its programmatic `generate()`) generates persisted-documents.json from the
 * graph's schema and an app's operations; the `platform graphql documents` command loads it into the
 * data directory the platform serves (which sees it within its refresh); requests by `documentId`,
 * as the generated documents' `__meta__.hash` says, run, and an operation the app does not ship is
 * refused. Then Apollo Client 4's persisted query link runs an app's operations by hash alone, from
 * an Apollo persisted query list built from the very text the client sends.
 */
let p: Started;
const dir = mkdtempSync(join(tmpdir(), 'trusted-clients-'));
beforeAll(async () => {
  p = await startInTemp('all', { GRAPHQL_TRUSTED_DOCUMENTS: 'refuse' });
}, 90_000);
afterAll(async () => {
  await p?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const post = async (body: unknown) => {
  const res = await fetch(`${p.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};
const json = (r: { status: number | null; stdout: string; stderr: string }) => {
  if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};

describe("GraphQL Code Generator's client preset", () => {
  /** The generated documents as the app imports them: each DocumentNode with its `__meta__.hash`. */
  const generatedDocuments = (source: string): Record<string, { __meta__: { hash: string } }> =>
    Object.fromEntries(
      [...source.matchAll(/export const (\w+)Document = (\{.*\}) as unknown as DocumentNode/g)].map((m) => [m[1], JSON.parse(m[2])]),
    );

  it('generates persisted documents that the CLI loads and the platform then runs by documentId, refusing what the app does not ship', async () => {
    const schemaFile = join(dir, 'schema.graphql');
    writeFileSync(schemaFile, printSchema(apolloPlanner(readSupergraph(), pino({ level: 'silent' })).apiSchema));
    mkdirSync(join(dir, 'src'));
    writeFileSync(
      join(dir, 'src', 'operations.ts'),
      [
        "import { graphql } from '../gql';",
        'export const realmQuery = graphql(`query Realm { realm { id name } }`);',
        'export const issuerQuery = graphql(`query Issuer($withIssuer: Boolean!) { realm { id issuer @include(if: $withIssuer) } }`);',
      ].join('\n'),
    );
    // In a node process of its own: the preset's plugins load ES modules by require(), which node
    // does and jest's module runtime does not.
    const config = {
      cwd: dir,
      schema: schemaFile,
      documents: [join(dir, 'src', '*.ts')],
      generates: { [`${join(dir, 'gql')}/`]: { preset: 'client', presetConfig: { persistedDocuments: true } } },
      silent: true,
    };
    const generated = await run(process.execPath, [
      '-e',
      `require('@graphql-codegen/cli').generate(${JSON.stringify(config)}, true).catch((err) => { console.error(err); process.exit(1); })`,
    ]);
    expect(generated).toMatchObject({ status: 0, stderr: '' });
    const manifestFile = join(dir, 'gql', 'persisted-documents.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, string>;
    expect(Object.keys(manifest)).toHaveLength(2);

    const loaded = json(await platformCli(p.dataDir, ['graphql', 'documents', 'load', manifestFile, '--name', 'web-app']));
    expect(loaded).toEqual({ app: 'web-app', format: 'graphql-codegen-persisted-documents', documents: 2, loaded_at: expect.any(String) });
    expect(json(await platformCli(p.dataDir, ['graphql', 'documents', 'list']))).toEqual([loaded]);

    const documents = generatedDocuments(readFileSync(join(dir, 'gql', 'graphql.ts'), 'utf8'));
    expect(Object.keys(documents).sort()).toEqual(['Issuer', 'Realm']);
    // As the preset's documentation has the app send them: the hash instead of the text.
    const byId = (name: string, variables: Record<string, unknown> = {}) =>
      post({ documentId: documents[name].__meta__.hash, operationName: name, variables });
    // The server reads the list the command wrote within its refresh.
    await eventually(async () => (await byId('Realm')).status === 200);
    expect((await byId('Realm')).body).toEqual({ data: { realm: { id: expect.any(String), name: expect.any(String) } } });
    expect((await byId('Issuer', { withIssuer: false })).body).toEqual({ data: { realm: { id: expect.any(String) } } });
    const unlisted = await post({ query: 'query Other { realm { issuer } }' });
    expect(unlisted.status).toBe(400);
    expect(unlisted.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_LISTED');

    // A broken manifest is refused by the command, naming the document, and the list stays.
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, JSON.stringify({ ...manifest, 'sha256:abc': '{ realm { nope } }' }));
    const refused = await platformCli(p.dataDir, ['graphql', 'documents', 'load', broken, '--name', 'web-app']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/Document 'sha256:abc' is not the SHA-256 of its text/);
    expect(json(await platformCli(p.dataDir, ['graphql', 'documents', 'list']))).toEqual([loaded]);
  });
});

describe('the command against a remote platform (--url, the admin API)', () => {
  it('loads, lists and removes as on the data directory, and refuses a broken manifest with the same line', async () => {
    const boot = p.bootstrap!.values;
    const env = { ADMIN_USERNAME: boot.admin_username, ADMIN_PASSWORD: boot.admin_password, REALM: boot.realm };
    const away = mkdtempSync(join(tmpdir(), 'trusted-remote-'));
    const remote = (args: string[]) => platformCli(away, [...args, '--url', p.url], undefined, env);
    // The command in the server's mode: both then show the console's built-in list first.
    const local = (args: string[]) => platformCli(p.dataDir, args, undefined, { GRAPHQL_TRUSTED_DOCUMENTS: 'refuse' });
    try {
      const file = join(dir, 'android.json');
      writeFileSync(file, JSON.stringify({ 'android-realm': 'query AndroidRealm { realm { id } }' }));
      const loaded = json(await remote(['graphql', 'documents', 'load', file]));
      expect(loaded).toEqual({
        app: 'android',
        format: 'graphql-codegen-persisted-documents',
        documents: 1,
        loaded_at: expect.any(String),
      });
      expect(json(await remote(['graphql', 'documents', 'list']))).toEqual(json(await local(['graphql', 'documents', 'list'])));
      const broken = join(dir, 'android-broken.json');
      writeFileSync(broken, JSON.stringify({ 'android-realm': 'query { nope }' }));
      const [r, l] = await Promise.all([
        remote(['graphql', 'documents', 'load', broken, '--name', 'android']),
        local(['graphql', 'documents', 'load', broken, '--name', 'android']),
      ]);
      expect([r.status, r.stderr]).toEqual([l.status, l.stderr]);
      expect(l.stderr).toMatch(/Document 'android-realm' is not valid against the graph's schema/);
      expect(json(await remote(['graphql', 'documents', 'remove', 'android']))).toEqual({ app: 'android', removed: true });
      const again = await remote(['graphql', 'documents', 'remove', 'android']);
      expect([again.status, again.stderr]).toEqual([
        1,
        `${JSON.stringify({ error: "no trusted document list for app 'android'", kind: 'not_found' })}\n`,
      ]);
      expect(json(await local(['graphql', 'documents', 'list'])).map((a: { app: string }) => a.app)).not.toContain('android');
    } finally {
      rmSync(away, { recursive: true, force: true });
    }
  });
});

describe("Apollo Client 4's persisted query link", () => {
  const REALM = gql`
    query RealmName {
      realm {
        id
        name
      }
    }
  `;

  it('runs the operations of an Apollo persisted query list by hash, never sending their text', async () => {
    const cache = new InMemoryCache();
    // What Apollo's manifest generator writes: the text the client sends (its cache's transforms applied).
    const body = print(cache.transformDocument(REALM));
    const id = createHash('sha256').update(body).digest('hex');
    const list = { format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id, body, name: 'RealmName', type: 'query' }] };
    const file = join(dir, 'apollo-manifest.json');
    writeFileSync(file, JSON.stringify(list));
    json(await platformCli(p.dataDir, ['graphql', 'documents', 'load', file, '--name', 'ios']));

    const sent: string[] = [];
    const spy: typeof fetch = (input, init) => {
      sent.push(`${String(input)} ${typeof init?.body === 'string' ? init.body : ''}`);
      return fetch(input, init);
    };
    const client = new ApolloClient({
      cache,
      link: ApolloLink.from([
        new PersistedQueryLink({ generateHash: (doc) => (print(doc) === body ? id : 'unlisted'), useGETForHashedQueries: true }),
        new HttpLink({ uri: `${p.url}/graphql`, fetch: spy }),
      ]),
    });
    await eventually(async () => (await post({ extensions: { persistedQuery: { version: 1, sha256Hash: id } } })).status === 200);
    const result = await client.query({ query: REALM, fetchPolicy: 'network-only' });
    expect(result.data).toEqual({ realm: { __typename: 'Realm', id: expect.any(String), name: expect.any(String) } });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain(id);
    expect(sent[0]).not.toMatch(/[?&]query=|"query"/);
  });
});
