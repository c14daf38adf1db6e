/**
 * The calls `npm run bench:long-prompt` sends a long prompt through: one per gateway route group
 * (the way each vendor's SDK would send it) and the chat proxy's `prev_context`.
 */
export interface LongCall {
  name: string;
  path: string;
  body: string;
  headers: Record<string, string>;
}

export interface CallParams {
  apiKey: string;
  /** A raw access token of the key's tenant (`request.user_cred.token`). */
  userToken: string;
  tenant: string;
}

/** One long run of letters without a space: the tokenizer's worst case (deterministic, `seed` varies it). */
export function unbroken(chars: number, seed = 1): string {
  const out: string[] = [];
  let x = seed >>> 0 || 1;
  for (let i = 0; i < chars; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out.push(String.fromCharCode(97 + ((x >>> 16) % 26)));
  }
  return out.join('');
}

const json = (p: CallParams, extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  'api-key': `${p.apiKey}/{"is_cache": 0}`,
  ...extra,
});

export function longCalls(p: CallParams, text: string): LongCall[] {
  const m = 'local-chat';
  const base = '/proxy/api/v1';
  return [
    {
      name: 'azure chat/completions',
      path: `${base}/azure/openai/deployments/${m}/chat/completions?api-version=2024-10-21`,
      headers: json(p),
      body: JSON.stringify({ messages: [{ role: 'user', content: text }] }),
    },
    {
      name: 'azure embeddings',
      path: `${base}/azure/openai/deployments/local-embed/embeddings?api-version=2024-10-21`,
      headers: json(p),
      body: JSON.stringify({ input: text }),
    },
    {
      name: 'gemini generateContent',
      path: `${base}/gemini/models/${m}:generateContent`,
      headers: json(p),
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] }),
    },
    {
      name: 'bedrock converse',
      path: `${base}/bedrock/model/${m}/converse`,
      headers: json(p),
      body: JSON.stringify({ messages: [{ role: 'user', content: [{ text }] }] }),
    },
    {
      name: 'bedrock invoke',
      path: `${base}/bedrock/model/${m}/invoke`,
      headers: json(p),
      body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 100, messages: [{ role: 'user', content: text }] }),
    },
    {
      name: 'anthropic messages',
      path: `${base}/bedrock/v1/messages/anthropic?modelId=${m}`,
      headers: json(p),
      body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 100, messages: [{ role: 'user', content: text }] }),
    },
    {
      name: 'graphql chat',
      path: '/graphql',
      headers: json(p),
      body: JSON.stringify({
        query: 'mutation($i: ChatInput!) { chat(input: $i) { content } }',
        variables: { i: { model: m, messages: [{ role: 'USER', content: text }] } },
      }),
    },
    {
      name: 'chat proxy prev_context',
      path: '/api/generate_answer',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        request: {
          user_cred: { token: p.userToken, client: { tenant_id: p.tenant } },
          bot_config: { caller_version: '1' },
          task_process: { service: 'bench' },
          kvp: {},
          prev_context: text,
        },
        query: '$continue_answer',
        api_key: `${p.apiKey}/{"is_cache": 0}`,
        history_prompt: [{ user_query: 'What is in the text?', response: text }],
      }),
    },
  ];
}
