import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { buildSchema } from 'graphql';
import pino from 'pino';
import { trustedDocumentsAdmin } from '../../gateway/trusted/admin-api';
import { trustedDocuments } from '../../gateway/trusted/enforce';
import { noAudit, type NewAuditEvent } from '../../core/shared/admin/audit';
import { parseManifest, parseManifestNow, sha256Hex } from '../../gateway/trusted/manifest';
import { graphqlLimits } from '../../edge/graphql/limits';
import { trustedRegistry } from '../../gateway/trusted/registry';
import { sqliteTrustedStore } from '../../gateway/trusted/store';
import type { Counter, Metrics } from '../../core/shared/telemetry/metrics';
import { noMetrics } from '../../core/shared/telemetry/metrics';

/**
 * Trusted documents' core: manifests of both formats read all or nothing, checked against a schema;
 * the store's lists replaced atomically; the policy of each mode on each way of naming an operation.
 */
const schema = buildSchema(`
  type Query { realm: Realm, models: [String!]! }
  type Realm { id: ID!, name: String! }
  type Mutation { rename(name: String!): Realm }
`);
const REALM = 'query Realm { realm { id name } }';
const MODELS = 'query Models { models }';
const hex = (s: string) => createHash('sha256').update(s).digest('hex');
const apollo = (operations: unknown[]) => ({ format: 'apollo-persisted-query-manifest', version: 1, operations });
const silent = pino({ level: 'silent' });

describe('parseManifestNow', () => {
  it("reads Apollo's persisted query list, ids checked as SHA-256 of their text", () => {
    const { format, documents } = parseManifestNow(apollo([{ id: hex(REALM), body: REALM, name: 'Realm', type: 'query' }]), schema);
    expect(format).toBe('apollo-persisted-query-manifest');
    expect(documents).toEqual([{ id: hex(REALM), body: REALM, sha256: hex(REALM), name: 'Realm', type: 'query' }]);
    expect(() => parseManifestNow(apollo([{ id: hex(MODELS), body: REALM, name: 'Realm', type: 'query' }]), schema)).toThrow(
      `Document '${hex(MODELS)}' is not the SHA-256 of its text (its digest is ${hex(REALM)})`,
    );
  });

  it("reads GraphQL Code Generator's persisted-documents.json: sha256:<hex> ids are checked, other ids (sha1, custom) taken as given", () => {
    const sha1 = createHash('sha1').update(MODELS).digest('hex');
    const { format, documents } = parseManifestNow({ [`sha256:${hex(REALM)}`]: REALM, [sha1]: MODELS }, schema);
    expect(format).toBe('graphql-codegen-persisted-documents');
    expect(documents.map((d) => [d.id, d.sha256, d.type, d.name])).toEqual([
      [`sha256:${hex(REALM)}`, hex(REALM), 'query', 'Realm'],
      [sha1, hex(MODELS), 'query', 'Models'],
    ]);
    expect(() => parseManifestNow({ [`sha256:${hex(MODELS)}`]: REALM }, schema)).toThrow(/is not the SHA-256 of its text/);
  });

  it('refuses the whole manifest for one bad document, naming it and saying why (code INVALID_MANIFEST)', () => {
    const cases: [unknown, RegExp][] = [
      [{ good: REALM, broken: 'query { realm { id }' }, /Document 'broken' does not parse/],
      [{ good: REALM, wrong: '{ realm { nope } }' }, /Document 'wrong' is not valid against the graph's schema: Cannot query field "nope"/],
      [{ two: `${REALM} ${MODELS}` }, /Document 'two' holds 2 operations/],
      [{ frag: 'fragment F on Realm { id }' }, /Document 'frag' holds 0 operations/],
      [{ empty: ' ' }, /Document 'empty' has no text/],
      [{ 'has space': REALM }, /Document 1 has no valid id/],
      [apollo([{ id: hex(REALM), body: REALM, type: 'mutation' }]), /says it is a "mutation" but is a query/],
      [{}, /lists no documents/],
      [[REALM], /A manifest is a JSON object/],
      [{ format: 'relay', operations: [] }, /Unknown manifest format "relay"/],
      [{ format: 'apollo-persisted-query-manifest', version: 2, operations: [] }, /Unsupported Apollo manifest version 2/],
    ];
    for (const [manifest, message] of cases) {
      let thrown: any;
      try {
        parseManifestNow(manifest, schema);
      } catch (err) {
        thrown = err;
      }
      expect(thrown?.message).toMatch(message);
      expect(thrown?.code).toBe('INVALID_MANIFEST');
    }
  });

  it('bounds the documents of a manifest and the length of each', () => {
    const many = Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`d${i}`, `query Q${i} { realm { id } }`]));
    expect(() => parseManifestNow(many, schema, { maxDocuments: 3, maxBytes: 1e6, maxDocumentChars: 1000 })).toThrow(
      expect.objectContaining({ code: 'MANIFEST_TOO_LARGE', kind: 'payload_too_large' }),
    );
    expect(() => parseManifestNow({ long: REALM }, schema, { maxDocuments: 3, maxBytes: 1e6, maxDocumentChars: 10 })).toThrow(
      /longer than 10 characters/,
    );
  });

  it("refuses, with the deployment's bounds, a document no request could run (too deep, too many aliases), naming it", async () => {
    const aliases = `{ ${Array.from({ length: 31 }, (_, i) => `a${i}: realm { id }`).join(' ')} }`;
    const bounds = graphqlLimits();
    await expect(parseManifest({ fine: REALM, wide: aliases }, schema, undefined, bounds)).rejects.toThrow(
      /Document 'wide' is over the graph's bounds, so no request could run it: The operation uses 31 aliases; the limit is 30/,
    );
    await expect(parseManifest({ fine: REALM }, schema, undefined, graphqlLimits({ maxDepth: 1 }))).rejects.toThrow(
      /Document 'fine' is over the graph's bounds.*nested 2 levels deep; the limit is 1/,
    );
    // Without bounds (the console's own list, checked at start) only the schema is checked.
    expect((await parseManifest({ wide: aliases }, schema)).documents).toHaveLength(1);
  });

  it('checks a large manifest in batches, the event loop serving others between them (the admin API load)', async () => {
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`d${i}`, `query Q${i} { realm { id } }`]));
    let turns = 0;
    const other = setInterval(() => turns++, 0);
    const parsed = await parseManifest(many, schema).finally(() => clearInterval(other));
    expect(parsed).toEqual(parseManifestNow(many, schema));
    expect(turns).toBeGreaterThan(0); // a timer ran while the 200 documents were checked
    await expect(parseManifest({ ...many, bad: '{ nothing }' }, schema)).rejects.toThrow(/Document 'bad'/);
  });
});

describe('the store and the registry', () => {
  const doc = (id: string, body: string) => ({ id, body, sha256: sha256Hex(body), type: 'query' as const });

  it("replaces an app's list atomically, refuses an id another app lists with another text, and counts generations", async () => {
    const store = sqliteTrustedStore(':memory:');
    await store.replace('web', 'graphql-codegen-persisted-documents', [doc('a', REALM), doc('b', MODELS)], 1000);
    expect(await store.generation()).toBe(1);
    await expect(
      store.replace('ios', 'graphql-codegen-persisted-documents', [doc('c', MODELS), doc('a', MODELS)], 2000),
    ).rejects.toMatchObject({
      kind: 'conflict',
      code: 'DOCUMENT_ID_TAKEN',
      message: expect.stringMatching(/'a' is already listed by app 'web'/),
    });
    // Nothing of the refused load was kept.
    expect(await store.apps()).toEqual([{ app: 'web', format: 'graphql-codegen-persisted-documents', documents: 2, loadedAt: 1000 }]);
    // The same id with the same text in two apps is one document.
    await store.replace('ios', 'graphql-codegen-persisted-documents', [doc('a', REALM)], 2000);
    await store.replace('web', 'graphql-codegen-persisted-documents', [doc('b', MODELS)], 3000);
    expect((await store.snapshot()).documents.map((d) => `${d.app}/${d.id}`)).toEqual(['ios/a', 'web/b']);
    expect(await store.remove('ios')).toBe(true);
    expect(await store.remove('ios')).toBe(false);
    expect(await store.generation()).toBe(4);
    void store.close();
  });

  it('holds the lists in memory, found by id, by sha256:<hex> and by the digest of their text, and reads them again when they change', async () => {
    const store = sqliteTrustedStore(':memory:');
    await store.replace('web', 'apollo-persisted-query-manifest', [doc(hex(REALM), REALM), doc('custom-1', MODELS)], 1);
    const registry = await trustedRegistry(store, { log: silent, refreshMs: 3_600_000 });
    expect(registry.text(hex(REALM))).toBe(REALM);
    expect(registry.text(`sha256:${hex(REALM)}`)).toBe(REALM);
    expect(registry.text('custom-1')).toBe(MODELS);
    expect(registry.text(hex(MODELS))).toBe(MODELS);
    expect(registry.listed(hex(MODELS))).toBe(true);
    await store.remove('web');
    expect(registry.size()).toBe(2);
    await registry.refresh();
    expect(registry.size()).toBe(0);
    expect(registry.text('custom-1')).toBeUndefined();
    registry.close();
    void store.close();
  });
});

describe('the policy of each mode', () => {
  const listed = new Map([
    ['web-1', REALM],
    [hex(REALM), REALM],
  ]);
  const registry = { text: (id: string) => listed.get(id.replace(/^sha256:/, '')), listed: (sha: string) => sha === hex(REALM) };
  const UNLISTED = '{ models }';

  const counting = () => {
    const counts: Record<string, number> = {};
    const counter: Counter = { inc: (labels) => void (counts[String(labels.mode)] = (counts[String(labels.mode)] ?? 0) + 1) };
    return { counts, metrics: { ...noMetrics, counter: () => counter } as Metrics };
  };

  it('resolves listed ids to their text in every mode (documentId, sha256:<hex>, an Apollo hash without text)', () => {
    for (const mode of ['off', 'log', 'refuse'] as const) {
      const policy = trustedDocuments(registry, { mode, log: silent });
      expect(policy.decide({ documentId: 'web-1' })).toEqual({ kind: 'resolved', query: REALM });
      expect(policy.decide({ documentId: `sha256:${hex(REALM)}` })).toEqual({ kind: 'resolved', query: REALM });
      expect(policy.decide({ extensions: { persistedQuery: { version: 1, sha256Hash: hex(REALM) } } })).toEqual({
        kind: 'resolved',
        query: REALM,
      });
      expect(policy.decide({ query: REALM })).toEqual({ kind: 'pass' });
    }
  });

  it('off: anything else runs as before; an unknown Apollo hash goes on to APQ, an unknown documentId is not found', () => {
    const policy = trustedDocuments(registry, { mode: 'off', log: silent });
    expect(policy.decide({ query: UNLISTED })).toEqual({ kind: 'pass' });
    expect(policy.decide({ extensions: { persistedQuery: { version: 1, sha256Hash: hex(UNLISTED) } } })).toEqual({ kind: 'pass' });
    expect(policy.decide({ documentId: 'nope' })).toMatchObject({ kind: 'refused', error: { code: 'PERSISTED_QUERY_NOT_FOUND' } });
    expect(policy.decide({ documentId: 'web-1', query: REALM })).toMatchObject({ kind: 'refused', error: { code: 'BAD_REQUEST' } });
    expect(policy.decide({ documentId: 42 })).toMatchObject({ kind: 'refused', error: { message: 'documentId must be a string' } });
  });

  it('log: an unlisted operation runs, is counted each time and logged once per text', () => {
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, new Writable({ write: (chunk, _e, done) => done(void lines.push(String(chunk))) }));
    const { counts, metrics } = counting();
    const policy = trustedDocuments(registry, { mode: 'log', log, metrics });
    for (let i = 0; i < 3; i++) expect(policy.decide({ query: 'query Unlisted { models }' })).toEqual({ kind: 'pass' });
    expect(policy.decide({ query: REALM })).toEqual({ kind: 'pass' });
    expect(counts).toEqual({ log: 3 });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ sha256: hex('query Unlisted { models }'), operationName: 'Unlisted' });
  });

  it('refuse: an unlisted text, an APQ registration, an unknown hash or id are refused with PERSISTED_QUERY_NOT_LISTED', () => {
    const { counts, metrics } = counting();
    const policy = trustedDocuments(registry, { mode: 'refuse', log: silent, metrics });
    const refusals = [
      policy.decide({ query: UNLISTED }),
      policy.decide({ query: UNLISTED, extensions: { persistedQuery: { version: 1, sha256Hash: hex(UNLISTED) } } }),
      policy.decide({ extensions: { persistedQuery: { version: 1, sha256Hash: hex(UNLISTED) } } }),
      policy.decide({ documentId: 'nope' }),
    ];
    for (const r of refusals)
      expect(r).toMatchObject({ kind: 'refused', error: { code: 'PERSISTED_QUERY_NOT_LISTED', kind: 'bad_request' } });
    expect(counts).toEqual({ refuse: 2 });
  });
});

describe('the administration', () => {
  const platformAdmin = { platform: true, realm: '', actor: { kind: 'cli' as const, name: 'ops' } };
  const realmAdmin = { platform: false, realm: 'acme', actor: { kind: 'user' as const, name: 'ann' } };

  it('is for platform administrators: a realm administrator is refused (403), and every change is audited', async () => {
    const store = sqliteTrustedStore(':memory:');
    const events: NewAuditEvent[] = [];
    let changed = 0;
    const api = trustedDocumentsAdmin({
      store,
      schema: () => schema,
      audit: { ...noAudit, record: async (e) => void events.push(e) },
      clock: { now: () => 5000 },
      changed: async () => void changed++,
    });
    const manifest = { 'web-realm': REALM };
    for (const call of [
      api.load({ app: 'web', manifest }, { caller: realmAdmin }),
      api.list({ caller: realmAdmin }),
      api.remove('web', { caller: realmAdmin }),
    ])
      await expect(call).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(api.load({ app: '../web', manifest }, { caller: platformAdmin })).rejects.toMatchObject({ code: 'INVALID_APP_NAME' });
    expect(await api.load({ app: 'web', manifest }, { caller: platformAdmin, clientAddress: '10.0.0.1' })).toEqual({
      app: 'web',
      format: 'graphql-codegen-persisted-documents',
      documents: 1,
      loaded_at: new Date(5000).toISOString(),
    });
    await expect(api.load({ app: 'web', manifest: { 'web-realm': '{ nope }' } }, { caller: platformAdmin })).rejects.toMatchObject({
      code: 'INVALID_MANIFEST',
    });
    await api.remove('web', { caller: platformAdmin });
    await expect(api.remove('web', { caller: platformAdmin })).rejects.toMatchObject({ kind: 'not_found' });
    expect(events.map((e) => [e.type, e.outcome, e.target?.id, e.details?.documents ?? null])).toEqual([
      ['graphql_documents.load', 'success', 'web', 1],
      ['graphql_documents.load', 'failure', 'web', null],
      ['graphql_documents.remove', 'success', 'web', null],
      ['graphql_documents.remove', 'failure', 'web', null],
    ]);
    expect(events[0]).toMatchObject({ actor: { kind: 'cli', name: 'ops' }, address: '10.0.0.1', service: 'gateway' });
    expect(changed).toBe(2);
    void store.close();
  });

  it("keeps the console's built-in list: listed first, its name reserved, its ids taken, held whatever the store holds", async () => {
    const store = sqliteTrustedStore(':memory:');
    const console_ = { app: 'console', id: hex(REALM), body: REALM, sha256: hex(REALM), name: 'Realm', type: 'query' as const };
    const builtIn = {
      app: { app: 'console', format: 'apollo-persisted-query-manifest' as const, documents: 1, loadedAt: 0 },
      documents: [console_],
    };
    const registry = await trustedRegistry(store, { log: silent, builtIn: builtIn.documents });
    const api = trustedDocumentsAdmin({ store, schema: () => schema, audit: noAudit, clock: { now: () => 5000 }, builtIn });
    expect(registry.text(hex(REALM))).toBe(REALM);
    for (const call of [
      api.load({ app: 'console', manifest: { x: MODELS } }, { caller: platformAdmin }),
      api.remove('console', { caller: platformAdmin }),
    ])
      await expect(call).rejects.toMatchObject({ kind: 'conflict', code: 'APP_BUILT_IN' });
    // A bare 64-hex id of a persisted-documents.json is the app's own: the console's, with another text, is refused.
    await expect(api.load({ app: 'web', manifest: { [hex(REALM)]: MODELS } }, { caller: platformAdmin })).rejects.toMatchObject({
      code: 'DOCUMENT_ID_TAKEN',
    });
    await api.load({ app: 'web', manifest: { [hex(REALM)]: REALM, models: MODELS } }, { caller: platformAdmin });
    await registry.refresh();
    expect([registry.text(hex(REALM)), registry.text('models')]).toEqual([REALM, MODELS]);
    expect((await api.list({ caller: platformAdmin })).map((a) => [a.app, a.built_in ?? false])).toEqual([
      ['console', true],
      ['web', false],
    ]);
    await api.remove('web', { caller: platformAdmin });
    await registry.refresh();
    expect([registry.text(hex(REALM)), registry.text('models')]).toEqual([REALM, undefined]);
    registry.close();
    void store.close();
  });
});
