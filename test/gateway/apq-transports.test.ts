import { createHash } from 'node:crypto';
import { ApolloClient, ApolloLink, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { chatFixture, type ChatFixture } from '../e2e/chat/fixture';

/**
 * Automatic persisted queries on every HTTP transport (gateway/apq.ts, issue 36): `@defer` over
 * multipart (Apollo Client 4's persisted query link, unchanged) and subscriptions over SSE are
 * registered and then run by hash alone, sharing the store Apollo Server's path uses; a hash the
 * store does not hold is Apollo's PersistedQueryNotFound on every transport, a hash that is not the
 * text's SHA-256 Apollo's 400.
 */
let f: ChatFixture;
beforeAll(async () => {
  f = await chatFixture();
}, 120_000);
afterAll(() => f?.stop());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const user = () => ({ authorization: f.a, 'api-key': f.apiKey });
const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });
const post = (body: unknown, accept = 'application/json') =>
  fetch(`${f.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, ...user() },
    body: JSON.stringify(body),
  });
const NOT_FOUND = { errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] };

const DEFERRED = `query Sources($input: AskInput!) {
  sources(input: $input) { query citations { citation document { id ... @defer { title } } } }
}`;
const VARIABLES = { input: { query: 'What are the side effects of aspirin?' } };

describe('automatic persisted queries beyond Apollo Server', () => {
  it("Apollo Client 4's persisted query link runs a @defer query by hash alone once it is registered, in parts", async () => {
    const sent: string[] = [];
    const spy: typeof fetch = (input, init) => {
      sent.push(typeof init?.body === 'string' ? init.body : '');
      return fetch(input, init);
    };
    const run = async () => {
      const client = new ApolloClient({
        cache: new InMemoryCache(),
        link: ApolloLink.from([new PersistedQueryLink({ sha256 }), new HttpLink({ uri: `${f.url}/graphql`, headers: user(), fetch: spy })]),
        incrementalHandler: new Defer20220824Handler(),
      });
      const states: string[] = [];
      const last = await new Promise<any>((resolve, reject) => {
        const sub = client.watchQuery({ query: gql(DEFERRED), variables: VARIABLES, fetchPolicy: 'no-cache' }).subscribe({
          next: (r) => {
            states.push(r.dataState);
            if (r.dataState === 'complete') {
              sub.unsubscribe();
              resolve(r);
            }
          },
          error: reject,
        });
      });
      return { states, last };
    };
    // First: the hash alone (not found), then hash and text (registered and run).
    const first = await run();
    expect(sent).toHaveLength(2);
    expect(JSON.parse(sent[0])).not.toHaveProperty('query');
    expect(JSON.parse(sent[1])).toHaveProperty('query');
    // Then another client: the hash alone, answered in parts.
    const second = await run();
    expect(sent).toHaveLength(3);
    expect(JSON.parse(sent[2])).not.toHaveProperty('query');
    expect(second.states).toContain('streaming');
    expect(second.last.data).toEqual(first.last.data);
    expect(second.last.data.sources.citations[0].document.title).toBe('Aspirin');
  });

  it('registers a subscription over SSE and runs it by hash alone; GET and POST share the store', async () => {
    const query = 'subscription Answer($input: AskInput!) { answerStream(input: $input) { response finishReason } }';
    const hash = sha256(query);
    const miss = await post({ variables: VARIABLES, extensions: persisted(hash) }, 'text/event-stream');
    expect(miss.status).toBe(200);
    expect(miss.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await miss.json()).toEqual(NOT_FOUND);

    const events = async (res: Response) => {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      return res.text();
    };
    const registered = await events(await post({ query, variables: VARIABLES, extensions: persisted(hash) }, 'text/event-stream'));
    expect(registered).toContain('"finishReason":"STOP"');
    const byHash = await events(await post({ variables: VARIABLES, extensions: persisted(hash) }, 'text/event-stream'));
    expect(byHash).toContain('"finishReason":"STOP"');
    expect(byHash).not.toContain('errors');

    // A query registered over a POST runs by hash over a GET.
    const realm = '{ realm { name } }';
    expect((await post({ query: realm, extensions: persisted(sha256(realm)) })).status).toBe(200);
    const params = new URLSearchParams({ extensions: JSON.stringify(persisted(sha256(realm))) });
    const got = await fetch(`${f.url}/graphql?${params}`, { headers: { 'apollo-require-preflight': 'true' } });
    expect(await got.json()).toEqual({ data: { realm: { name: expect.any(String) } } });
  });

  it("answers Apollo Server's errors on every transport: an unknown hash, a hash that is not the text's, another version; keeps no text the guard or validation refused", async () => {
    const deferred = '{ realm { name ... @defer { issuer } } }';
    const multipart = 'multipart/mixed;deferSpec=20220824, application/json';
    const unknown = await post({ extensions: persisted(sha256(deferred)) }, multipart);
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toEqual(NOT_FOUND);
    const getMiss = await fetch(`${f.url}/graphql?${new URLSearchParams({ extensions: JSON.stringify(persisted('0'.repeat(64))) })}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(await getMiss.json()).toEqual(NOT_FOUND);

    // Fifty at once for a hash nobody registered, one of them a hash of 100,000 characters: each told, none a 500.
    const flood = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post({ extensions: persisted(i ? sha256(`{ realm { id } } # ${i}`) : 'f'.repeat(100_000)) })),
    );
    expect(flood.map((r) => r.status)).toEqual(Array(50).fill(200));
    for (const r of flood) expect(await r.json()).toEqual(NOT_FOUND);

    const mismatch = await post({ query: deferred, extensions: persisted(sha256('{ realm { id } }')) }, multipart);
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toEqual({
      errors: [{ message: 'provided sha does not match query', extensions: { code: 'BAD_REQUEST' } }],
    });
    // The text was not kept under that hash.
    expect(await (await post({ extensions: persisted(sha256('{ realm { id } }')) })).json()).toEqual(NOT_FOUND);

    // A registration the document guard refuses is not kept either.
    const tooMany = `{ ${Array.from({ length: 31 }, (_, i) => `a${i}: __typename`).join(' ')} }`; // 31 aliases: the limit is 30
    const tooDeep = await post({ query: tooMany, extensions: persisted(sha256(tooMany)) });
    expect(tooDeep.status).toBe(400);
    expect(((await tooDeep.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe('TOO_MANY_ALIASES');
    expect(await (await post({ extensions: persisted(sha256(tooMany)) })).json()).toEqual(NOT_FOUND);

    // Nor one that does not parse, or does not validate (as Apollo Server keeps a text only after
    // validation): each answered with its error, then unknown by its hash.
    for (const [text, code] of [
      ['{ realm { name }', 'GRAPHQL_PARSE_FAILED'],
      ['{ realm { nope } }', 'GRAPHQL_VALIDATION_FAILED'],
    ]) {
      const refused = await post({ query: text, extensions: persisted(sha256(text)) });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe(code);
      expect(await (await post({ extensions: persisted(sha256(text)) })).json()).toEqual(NOT_FOUND);
    }
    // Sixty such registrations at once (a parse failure, an unknown field among 2,000, one too deep):
    // each refused with its code, none kept.
    const hostile = Array.from({ length: 60 }, (_, i) =>
      i % 3 === 0
        ? `{ ${Array.from({ length: 2000 }, (_, k) => `f${i}_${k}`).join(' ')} }`
        : i % 3 === 1
          ? `${'{ a'.repeat(200)}${' }'.repeat(200)} # ${i}`
          : `{ realm { name } # ${i}`,
    );
    const flooded = await Promise.all(hostile.map((text) => post({ query: text, extensions: persisted(sha256(text)) })));
    expect(flooded.map((r) => r.status)).toEqual(Array(60).fill(400));
    const codes = new Set(
      await Promise.all(
        flooded.map(async (r) => ((await r.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code),
      ),
    );
    expect([...codes].sort()).toEqual(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'QUERY_TOO_DEEP']);
    for (const text of hostile) expect(await (await post({ extensions: persisted(sha256(text)) })).json()).toEqual(NOT_FOUND);
    // A valid one is kept, and runs by its hash alone.
    const valid = '{ realm { name } }';
    expect((await post({ query: valid, extensions: persisted(sha256(valid)) })).status).toBe(200);
    expect(await (await post({ extensions: persisted(sha256(valid)) })).json()).toEqual({ data: { realm: { name: expect.any(String) } } });

    const v2 = await post({ query: deferred, extensions: { persistedQuery: { version: 2, sha256Hash: sha256(deferred) } } }, multipart);
    expect(v2.status).toBe(400);
    expect(((await v2.json()) as { errors: { message: string }[] }).errors[0].message).toBe('Unsupported persisted query version');
  });
});
