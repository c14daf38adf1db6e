import { chatFixture, type ChatFixture } from '../e2e/chat/fixture';
import { freePort, startInTemp, type Started } from '../e2e/shared/server';
import { ANSWER_STREAM, run, socketClient } from '../e2e/shared/subscription-wire';

/**
 * Partial data: a field that fails (its subgraph down, a credential the caller lacks) is null with
 * an error naming its code and subgraph, and the rest of the answer stands. Root fields are
 * nullable, and so are the fields that reference another subgraph's entities (an answer's model,
 * a source's document). Through the platform's gateway (subgraphs in process), and through a
 * gateway served alone in front of subgraphs served alone, one of them down.
 */
let f: ChatFixture;
const alone: Record<string, Started> = {};
let up: Started;
let modelsDown: Started;

type Answer = { status: number; body: any };
const gql = async (base: string, query: string, headers: Record<string, string | undefined>, variables?: unknown): Promise<Answer> => {
  const sent = Object.fromEntries(
    Object.entries({ 'content-type': 'application/json', ...headers }).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers: sent, body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: await res.json() };
};
/** The errors as [path, code, serviceName]. */
const errorsOf = (a: Answer) => (a.body.errors ?? []).map((e: any) => [e.path?.join('.'), e.extensions?.code, e.extensions?.serviceName]);

const VIEWER_AND_MODELS = '{ viewer { username } models { id } }';
const ANSWER =
  'mutation($input: AskInput!) { generateAnswer(input: $input) { response model { id contextLength } sources { title document { title } } } }';
const ASPIRIN = { input: { query: 'What are the side effects of aspirin?' } };

beforeAll(async () => {
  f = await chatFixture();
  const shared = { PLATFORM_DATA_DIR: f.platform.dataDir, AUTH_ISSUER_URL: f.url, LOG_LEVEL: 'silent' };
  for (const name of ['token', 'search', 'models'] as const) alone[name] = await startInTemp(name, shared);
  alone.chat = await startInTemp('chat', { ...shared, SEARCH_URL: alone.search.url, MODELS_URL: alone.models.url });
  // A gateway's settings in front of the parts: the issuer of the tokens it checks (as the README's parts.env gives every part), and where the subgraphs are.
  const urls = (models: string) => ({
    AUTH_ISSUER_URL: f.url,
    SUBGRAPH_TOKEN_URL: `${alone.token.url}/graphql`,
    SUBGRAPH_SEARCH_URL: `${alone.search.url}/graphql`,
    SUBGRAPH_MODELS_URL: models,
    SUBGRAPH_CHAT_URL: `${alone.chat.url}/graphql`,
  });
  up = await startInTemp('gateway', urls(`${alone.models.url}/graphql`));
  // The models subgraph down; the chat proxy still reaches the model gateway's REST paths.
  modelsDown = await startInTemp('gateway', urls(`http://127.0.0.1:${await freePort()}/graphql`));
}, 90_000);
afterAll(async () => {
  await up?.stop();
  await modelsDown?.stop();
  for (const s of Object.values(alone).reverse()) await s.stop();
  await f?.stop();
});

describe.each([
  ['subgraphs in process', () => f.url],
  ['subgraphs served alone', () => up.url],
])('a caller lacking a credential, %s', (_, base) => {
  it('gets the viewer and a null models with UNAUTHENTICATED naming models, without an api-key', async () => {
    const r = await gql(base(), VIEWER_AND_MODELS, { authorization: f.a });
    expect(r.body.data).toEqual({ viewer: { username: 'service-account-a-1' }, models: null });
    expect(errorsOf(r)).toEqual([['models', 'UNAUTHENTICATED', 'models']]);
  });

  it('gets the models and a null viewer with UNAUTHENTICATED naming token, without a token or with a bad one', async () => {
    for (const authorization of [undefined, 'Bearer not-a-token']) {
      const r = await gql(base(), VIEWER_AND_MODELS, { authorization, 'api-key': f.apiKey });
      expect(r.body.data.viewer).toBeNull();
      expect(r.body.data.models).toEqual(expect.arrayContaining([{ id: 'local-chat' }]));
      expect(errorsOf(r)).toEqual([['viewer', 'UNAUTHENTICATED', 'token']]);
    }
  });

  it('gets the viewer and a null search with FORBIDDEN naming search, without the role search:read', async () => {
    const r = await gql(base(), '{ viewer { username } search(query: "aspirin") { totalCount } }', { authorization: f.noRoles });
    expect(r.body.data).toEqual({ viewer: { username: 'service-account-a-none' }, search: null });
    expect(errorsOf(r)).toEqual([['search', 'FORBIDDEN', 'search']]);
  });

  it('keeps a mutation that succeeded when the next one of the request fails', async () => {
    const r = await gql(
      base(),
      'mutation { added: addDocument(input: { title: "Kept", content: "Kept despite the next one." }) { title } gone: deleteDocument(id: "no-such-id") }',
      { authorization: f.a },
    );
    expect(r.body.data).toEqual({ added: { title: 'Kept' }, gone: null });
    expect(errorsOf(r)).toEqual([['gone', 'NOT_FOUND', 'search']]);
  });
});

describe('the models subgraph down, the others served alone', () => {
  it('answers the viewer, with a null models and UPSTREAM_ERROR naming models', async () => {
    const r = await gql(modelsDown.url, VIEWER_AND_MODELS, { authorization: f.a, 'api-key': f.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ viewer: { username: 'service-account-a-1' }, models: null });
    expect(errorsOf(r)).toEqual([['models', 'UPSTREAM_ERROR', 'models']]);
    expect(r.body.errors[0].message).toBe('The models subgraph is unavailable');
  });

  it('answers generateAnswer with its text and sources, its model null with UPSTREAM_ERROR naming models', async () => {
    const r = await gql(modelsDown.url, ANSWER, { authorization: f.a, 'api-key': f.apiKey }, ASPIRIN);
    const answer = r.body.data.generateAnswer;
    expect(answer.response).toContain('stomach upset');
    expect(answer.sources[0]).toEqual({ title: 'Aspirin', document: { title: 'Aspirin' } });
    expect(answer.model).toBeNull();
    // An entity fetch failed as a whole: one error, without a path (the gateway's own way).
    expect(errorsOf(r)).toEqual([[undefined, 'UPSTREAM_ERROR', 'models']]);
  });

  it('streams answerStream with its text, its model null with UPSTREAM_ERROR naming models', async () => {
    const client = socketClient(modelsDown.url, { authorization: f.a, 'api-key': f.apiKey });
    try {
      const { results, error } = await run(client, ANSWER_STREAM, ASPIRIN);
      expect(error).toBeUndefined();
      expect(results.map((x) => x.data.answerStream.response).join('')).toContain('stomach upset');
      expect(results[0].data.answerStream.model).toBeNull();
      expect(results[0].data.answerStream.sources[0]).toMatchObject({ title: 'Aspirin', document: { title: 'Aspirin' } });
      expect(results[0].errors).toEqual([
        expect.objectContaining({ extensions: expect.objectContaining({ code: 'UPSTREAM_ERROR', serviceName: 'models' }) }),
      ]);
    } finally {
      await client.dispose();
    }
  });
});
