import { startInTemp, type Started } from './server';

/**
 * JSON nested thousands of levels deep, sent to every route group of a started platform: each
 * answers 400 in its own error format naming the limit (128), never 500; the same bodies nested 100
 * levels (a JSON schema's depth) are still served.
 */
const arrays = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const objects = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const LIMIT = /\b128\b/;
const parsed = (text: string): any => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

interface Group {
  name: string;
  path: string;
  /** A valid body of the route, with `deep` (JSON text) in a field the route ignores or passes on. */
  body: (deep: string) => string;
  headers?: 'bearer' | 'api-key' | 'none';
  /** The status of the valid body at depth 100. */
  ok?: number;
  /** The message of an error in the route's own format (undefined when the body is not in it). */
  message: (body: any) => string | undefined;
}

const searchError = (b: any) => (b.status === 'error' ? b.message : undefined);
const bedrockError = (b: any) => (b.__type === 'ValidationException' ? b.message : undefined);
const geminiError = (b: any) => (b.error?.status === 'INVALID_ARGUMENT' && b.error.code === 400 ? b.error.message : undefined);
const azureError = (b: any) => (b.error?.type === 'invalid_request_error' ? b.error.message : undefined);
const MODELS = '/proxy/api/v1';
const contents = '"contents":[{"role":"user","parts":[{"text":"hi"}]}]';
const converse = '"messages":[{"role":"user","content":[{"text":"hi"}]}]';

const GROUPS: Group[] = [
  {
    name: 'token',
    path: '/auth/api/v1/oauth/connect/token',
    body: (d) => `{"client_id":"CLIENT","client_secret":"SECRET","x":${d}}`,
    ok: 200,
    message: (b) => (b.error === 'json_too_deep' && b.error_description === b.detail ? b.detail : undefined),
  },
  {
    name: 'search v1',
    path: '/cl/search/api/v1/semantic?query_string=x&start=1&size=5&min_relevant_score=0',
    headers: 'bearer',
    body: (d) => `{"x":${d}}`,
    ok: 200,
    message: searchError,
  },
  {
    name: 'search v2',
    path: '/cl/search/api/v2/semantic?query_string=x',
    headers: 'bearer',
    body: (d) => `{"tags":[],"x":${d}}`,
    ok: 200,
    message: searchError,
  },
  {
    name: 'search objects',
    path: '/cl/search/api/v2/objects',
    headers: 'bearer',
    body: (d) => `{"content":"Deep text.","x":${d}}`,
    ok: 201,
    message: searchError,
  },
  {
    name: 'azure chat',
    path: `${MODELS}/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21`,
    headers: 'api-key',
    body: (d) =>
      `{"messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":${d}}}}`,
    ok: 200,
    message: azureError,
  },
  {
    name: 'azure embeddings',
    path: `${MODELS}/azure/openai/deployments/local-embed/embeddings?api-version=2024-10-21`,
    headers: 'api-key',
    body: (d) => `{"input":"hi","x":${d}}`,
    ok: 200,
    message: azureError,
  },
  {
    name: 'gemini generate',
    path: `${MODELS}/gemini/models/local-chat:generateContent`,
    headers: 'api-key',
    body: (d) => `{${contents},"x":${d}}`,
    ok: 200,
    message: geminiError,
  },
  {
    name: 'gemini stream',
    path: `${MODELS}/gemini/models/local-chat:streamGenerateContent`,
    headers: 'api-key',
    body: (d) => `{${contents},"x":${d}}`,
    ok: 200,
    message: geminiError,
  },
  {
    name: 'gemini embed',
    path: `${MODELS}/gemini/models/local-embed:embedContent`,
    headers: 'api-key',
    body: (d) => `{"content":{"parts":[{"text":"hi"}]},"x":${d}}`,
    ok: 200,
    message: geminiError,
  },
  {
    name: 'bedrock converse',
    path: `${MODELS}/bedrock/model/local-chat/converse`,
    headers: 'api-key',
    body: (d) => `{${converse},"additionalModelRequestFields":{"x":${d}}}`,
    ok: 200,
    message: bedrockError,
  },
  {
    name: 'bedrock invoke',
    path: `${MODELS}/bedrock/model/local-chat/invoke`,
    headers: 'api-key',
    body: (d) => `{${converse},"inferenceConfig":{"maxTokens":50},"x":${d}}`,
    ok: 200,
    message: bedrockError,
  },
  {
    name: 'bedrock messages',
    path: `${MODELS}/bedrock/v1/messages/nova?modelId=local-chat`,
    headers: 'api-key',
    body: (d) => `{${converse},"x":${d}}`,
    ok: 200,
    message: bedrockError,
  },
  {
    name: 'anthropic',
    path: `${MODELS}/bedrock/v1/messages/anthropic?modelId=local-chat`,
    headers: 'api-key',
    body: (d) =>
      `{"anthropic_version":"bedrock-2023-05-31","max_tokens":50,"messages":[{"role":"user","content":"hi"}],"metadata":{"x":${d}}}`,
    ok: 200,
    message: (b) => (b.type === 'error' && b.error?.type === 'invalid_request_error' ? b.error.message : undefined),
  },
  {
    name: 'chat proxy',
    path: '/api/generate_answer',
    body: (d) => `{"request":{"query":"hi","kvp":${d}}}`,
    message: (b) => (typeof b.detail === 'string' ? b.detail : undefined),
  },
  {
    name: 'graphql',
    path: '/graphql',
    body: (d) => `{"query":"{ __typename }","variables":{"x":${d}}}`,
    ok: 200,
    message: (b) =>
      b.errors?.[0]?.extensions?.code === 'BAD_USER_INPUT' && b.errors[0].extensions.reason === 'json_too_deep'
        ? b.errors[0].message
        : undefined,
  },
];

describe('JSON nested too deep, on every route group', () => {
  let p: Started;
  let headers: Record<string, Record<string, string>>;
  let client: { id: string; secret: string };
  beforeAll(async () => {
    p = await startInTemp('all');
    const v = p.bootstrap!.values;
    client = { id: v.client_id, secret: v.client_secret };
    const token = await fetch(
      `${p.url}/auth/api/v1/oauth/connect/token?client_id=${client.id}&client_secret=${encodeURIComponent(client.secret)}`,
      { method: 'POST' },
    );
    const bearer = ((await token.json()) as { access_token: string }).access_token;
    headers = { bearer: { authorization: `Bearer ${bearer}` }, 'api-key': { 'api-key': v.api_key }, none: {} };
  }, 60_000);
  afterAll(() => p.stop());

  const send = async (g: Group, deep: string) => {
    const body = g.body(deep).replace('CLIENT', client.id).replace('SECRET', client.secret);
    const res = await fetch(`${p.url}${g.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers[g.headers ?? 'none'] },
      body,
    });
    const text = await res.text();
    return { status: res.status, text, json: parsed(text) };
  };

  describe.each(GROUPS.map((g) => [g.name, g] as const))('%s', (_name, group) => {
    it.each([
      ['arrays', 4000],
      ['objects', 4000],
      ['arrays', 100_000],
      ['objects', 100_000],
    ] as const)('refuses %s nested %i levels with a 400 in its own format naming the limit', async (kind, depth) => {
      const r = await send(group, kind === 'arrays' ? arrays(depth) : objects(depth));
      expect({ status: r.status, message: r.json && group.message(r.json) }).toEqual({
        status: 400,
        message: expect.stringMatching(LIMIT),
      });
    });

    if (group.ok !== undefined) {
      it('still serves the same body nested 100 levels', async () => {
        const r = await send(group, objects(100));
        expect({ status: r.status, body: r.text.slice(0, 300) }).toEqual({ status: group.ok, body: expect.any(String) });
        expect(r.text).not.toMatch(/json_too_deep/);
      });
    }
  });

  it('refuses deep JSON text in query parameters (kvp, taxonomy, date ranges) in the search envelope', async () => {
    for (const param of ['kvp={"a":', 'taxonomy={"a":', 'created_between=']) {
      const value = `${param}${arrays(5000)}${param.endsWith(':') ? '}' : ''}`;
      const path = param.startsWith('created')
        ? '/cl/search/api/v1/basic_search?start=1&size=5&'
        : '/cl/search/api/v1/semantic?query_string=x&start=1&size=5&min_relevant_score=0&';
      const res = await fetch(`${p.url}${path}${value}`, { method: 'POST', headers: headers.bearer });
      expect({ param, status: res.status, message: searchError(await res.json()) }).toEqual({
        param,
        status: 400,
        message: expect.stringMatching(LIMIT),
      });
    }
  });

  it('refuses a deep multipart metadata part in the search envelope', async () => {
    for (const depth of [4000, 100_000]) {
      const form = new FormData();
      form.append('metadata', `{"kvp":{"a":${objects(depth)}}}`);
      form.append('file', new Blob(['Some text.'], { type: 'text/plain' }), 'a.txt');
      const res = await fetch(`${p.url}/cl/search/api/v2/objects`, { method: 'POST', headers: headers.bearer, body: form });
      expect({ status: res.status, message: searchError(await res.json()) }).toEqual({
        status: 400,
        message: expect.stringMatching(/metadata part.*\b128\b/),
      });
    }
  });

  it('refuses api-key options nested too deep (JSON or Python dict) in the route format, and serves shallow ones', async () => {
    const chat = (key: string) =>
      fetch(`${p.url}${MODELS}/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'api-key': key },
        body: '{"messages":[{"role":"user","content":"hi"}]}',
      });
    const key = headers['api-key']['api-key'];
    for (const options of [`{"x":${arrays(5000)}}`, `{'x': ${arrays(5000)}, 'is_cache': 0}`]) {
      const res = await chat(`${key}/${options}`);
      expect({ status: res.status, message: azureError(await res.json()) }).toEqual({
        status: 400,
        message: expect.stringMatching(/api-key.*\b128\b/),
      });
    }
    expect((await chat(`${key}/{"x":${arrays(100)},"is_cache":0}`)).status).toBe(200);
  });
});
