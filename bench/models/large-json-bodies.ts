/**
 * The requests `npm run bench:large-json` sends: about `bytes` of JSON structure each (not one long
 * string: many small objects, which cost far more to parse, check and convert per byte), one call
 * per door and kind of structure, as each vendor's SDK would send it, and the plain body of the
 * same size (one long string) as the baseline. `seed` makes each body differ, so nothing is
 * answered from the cache.
 */
export interface LargeCall {
  name: string;
  path: string;
  body: string;
  headers: Record<string, string>;
}

/** A kind of call, its body made when asked (a megabyte each). */
export interface LargeKind {
  name: string;
  make(): LargeCall;
}

export interface LargeParams {
  apiKey: string;
  /** A raw access token of the key's tenant (GraphQL chat, `request.user_cred.token`). */
  userToken: string;
  tenant: string;
}

/** A JSON Schema of about `bytes`: objects of properties, each a few keywords, every fifth nested. */
export function schemaOf(bytes: number, seed: number, tag = 'p'): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const leaf = { type: 'string', description: `Value ${i} of ${seed % 997}`, enum: ['a', 'b'] };
    const p = i % 5 ? leaf : { type: 'object', properties: { x: { type: 'integer', minimum: 0 }, y: leaf }, required: ['x'] };
    properties[`${tag}${seed % 997}_${i}`] = p;
    size += JSON.stringify(p).length + 12;
  }
  return { type: 'object', properties, required: Object.keys(properties).slice(0, 2) };
}

/** `n` schemas sharing `bytes` among them. */
const schemas = (bytes: number, seed: number, n: number) => Array.from({ length: n }, (_, i) => schemaOf(bytes / n, seed, `t${i}_`));

const TOOLS = 64;
/** Words filling about `bytes` (with the JSON around each, as array elements). */
function words(bytes: number, seed: number): string[] {
  const out: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const w = `w${seed % 997}x${i}`;
    out.push(w);
    size += w.length + 3;
  }
  return out;
}

const json = (p: LargeParams) => ({ 'content-type': 'application/json', 'api-key': p.apiKey });
const user = (text: string) => [{ role: 'user', content: text }];

/**
 * A built-in chat model with a context of two million tokens (the bench's catalog, LARGE_CHAT_CATALOG):
 * large tool sets and prompts are answered, not refused for the context, so both builds do the
 * whole of their work on them.
 */
export const LARGE_CHAT = 'large-context-chat';
export const LARGE_CHAT_CATALOG = {
  id: LARGE_CHAT,
  group: 'A',
  kind: 'chat',
  upstream: { provider: 'local' },
  contextLength: 2_000_000,
  maxOutputTokens: 1024,
  inputKinds: ['text'],
  price: { inputPerMillion: 0, outputPerMillion: 0 },
  status: 'Active',
};

/** Every kind of call, each carrying about `bytes` of structure; `seed` varies them. */
export function largeCalls(p: LargeParams, bytes: number, seed: number): LargeKind[] {
  const m = LARGE_CHAT;
  const base = '/proxy/api/v1';
  const azure = `${base}/azure/openai/deployments/${m}/chat/completions?api-version=2024-10-21`;
  const embeddings = `${base}/azure/openai/deployments/local-embed/embeddings?api-version=2024-10-21`;
  const q = `Which tool answers question ${seed}?`;
  const tools = () => schemas(bytes * 0.96, seed, TOOLS);
  // GraphQL bounds the values of an operation's variables (GRAPHQL_MAX_VARIABLE_VALUES, 10,000) and the
  // chat inputs their counts (1,000 messages, 200 turns): there, a megabyte comes in fewer, longer strings.
  const long = (n: number, i: number) => `Turn ${i} of ${seed}: ${'x'.repeat(Math.max(0, Math.floor(bytes / n) - 40))}`;
  const bearer = { ...json(p), authorization: `Bearer ${p.userToken}` };
  const calls: [string, string, () => unknown, Record<string, string>?][] = [
    ['plain 1 MB string (baseline)', azure, () => ({ messages: user(`${'a'.repeat(bytes)} ${seed}`) })],
    [
      'azure chat: tools',
      azure,
      () => ({
        messages: user(q),
        tools: tools().map((s, i) => ({ type: 'function', function: { name: `tool_${i}`, description: `Tool ${i}`, parameters: s } })),
      }),
    ],
    [
      'azure chat: response_format',
      azure,
      () => ({
        messages: user(q),
        response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: schemaOf(bytes, seed) } },
      }),
    ],
    [
      'azure chat: message parts',
      azure,
      () => ({ messages: [{ role: 'user', content: words(bytes / 3.3, seed).map((text) => ({ type: 'text', text })) }] }),
    ],
    ['azure chat: tool results', azure, () => ({ messages: toolRound(bytes, seed) })],
    [
      'openai responses: tools',
      `${base}/responses`,
      () => ({
        model: m,
        input: q,
        tools: tools().map((s, i) => ({ type: 'function', name: `tool_${i}`, description: `Tool ${i}`, parameters: s })),
      }),
    ],
    [
      'anthropic messages: tools',
      `${base}/anthropic/v1/messages`,
      () => ({
        model: m,
        max_tokens: 100,
        messages: user(q),
        tools: tools().map((s, i) => ({ name: `tool_${i}`, description: `Tool ${i}`, input_schema: s })),
      }),
    ],
    [
      'gemini: functionDeclarations',
      `${base}/gemini/models/${m}:generateContent`,
      () => ({
        contents: [{ role: 'user', parts: [{ text: q }] }],
        tools: [
          { functionDeclarations: tools().map((s, i) => ({ name: `tool_${i}`, description: `Tool ${i}`, parameters: geminiSchema(s) })) },
        ],
      }),
    ],
    [
      'gemini: responseSchema',
      `${base}/gemini/models/${m}:generateContent`,
      () => ({
        contents: [{ role: 'user', parts: [{ text: q }] }],
        generationConfig: { responseMimeType: 'application/json', responseSchema: geminiSchema(schemaOf(bytes, seed)) },
      }),
    ],
    [
      'bedrock converse: toolConfig',
      `${base}/bedrock/model/${m}/converse`,
      () => ({
        messages: [{ role: 'user', content: [{ text: q }] }],
        toolConfig: {
          tools: tools().map((s, i) => ({ toolSpec: { name: `tool_${i}`, description: `Tool ${i}`, inputSchema: { json: s } } })),
        },
      }),
    ],
    [
      'bedrock invoke: tools',
      `${base}/bedrock/model/${m}/invoke`,
      () => ({
        anthropic_version: 'bedrock-2023-05-31',
        max_tokens: 100,
        messages: user(q),
        tools: tools().map((s, i) => ({ name: `tool_${i}`, input_schema: s })),
      }),
    ],
    [
      'azure embeddings: 2048 texts',
      embeddings,
      () => ({ input: Array.from({ length: 2048 }, (_, i) => words((bytes / 2048) * 1.2, seed + i).join(' ')) }),
    ],
    [
      'azure embeddings: token ids',
      embeddings,
      () => ({
        input: Array.from({ length: 64 }, (_, i) =>
          Array.from({ length: Math.floor(bytes / 64 / 6) }, (_, j) => 1000 + ((seed * 7919 + i * 104_729 + j * 31) % 90_000)),
        ),
      }),
    ],
    [
      'graphql models chat: messages',
      '/graphql',
      () => ({
        query: 'mutation($i: ChatInput!) { chat(input: $i) { content } }',
        variables: {
          i: {
            model: m,
            messages: [
              ...Array.from({ length: 998 }, (_, i) => ({ role: i % 2 ? 'ASSISTANT' : 'USER', content: long(1000, i) })),
              { role: 'USER', content: q },
            ],
          },
        },
      }),
    ],
    [
      'graphql chat answer: history',
      '/graphql',
      () => ({
        query: 'mutation($i: AskInput!) { generateAnswer(input: $i) { response } }',
        variables: {
          i: {
            query: q,
            modelId: m,
            history: Array.from({ length: 200 }, (_, i) => ({ userQuery: `Question ${i} of ${seed}?`, response: long(200, i) })),
          },
        },
      }),
      bearer,
    ],
    [
      'chat proxy: tool_defns',
      '/api/generate_answer',
      () => ({
        request: {
          user_cred: { token: p.userToken, client: { tenant_id: p.tenant } },
          bot_config: { caller_version: '1' },
          task_process: { service: 'bench' },
          kvp: {},
        },
        query: q,
        api_key: p.apiKey,
        model_info: { modelId: m },
        tool_defns: tools().map((s, i) => ({ type: 'function', function: { name: `tool_${i}`, description: `Tool ${i}`, parameters: s } })),
      }),
      { 'content-type': 'application/json' },
    ],
  ];
  return calls.map(([name, path, body, headers]) => ({
    name,
    make: () => ({ name, path, body: JSON.stringify(body()), headers: headers ?? json(p) }),
  }));
}

/** Gemini's Schema: capital types, as the SDKs send a `Type.OBJECT`. */
function geminiSchema(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(geminiSchema);
  if (!s || typeof s !== 'object') return s;
  return Object.fromEntries(
    Object.entries(s).map(([k, v]) => [
      k,
      k === 'type' && typeof v === 'string'
        ? v.toUpperCase()
        : k === 'properties'
          ? Object.fromEntries(Object.entries(v as object).map(([n, x]) => [n, geminiSchema(x)]))
          : geminiSchema(v),
    ]),
  );
}

/** An assistant turn that called tools, and its many results (JSON objects as text), then the question again. */
function toolRound(bytes: number, seed: number): unknown[] {
  const out: unknown[] = [{ role: 'user', content: `Look up item ${seed}.` }];
  const per = 100;
  for (let r = 0, size = 0; size < bytes; r++) {
    const calls = Array.from({ length: per }, (_, i) => ({
      id: `call_${r}_${i}`,
      type: 'function',
      function: { name: 'lookup', arguments: `{"id":${i}}` },
    }));
    out.push({ role: 'assistant', content: null, tool_calls: calls });
    for (const c of calls) {
      const content = JSON.stringify({
        id: c.id,
        rows: [
          { k: `r${r}`, v: seed },
          { k: 'n', v: r },
        ],
      });
      out.push({ role: 'tool', tool_call_id: c.id, content });
      size += content.length + 170;
    }
  }
  return out;
}
