import type { z } from 'zod';
import { Answer, AnswerChunk, ChatError, Sources } from '../../../rest/chat/docs';
import { GatewayError, ModelList, Usage } from '../../../rest/models/docs';
import { AzureError, ChatCompletion, ChatCompletionChunk, Embeddings, ImagesResponse } from '../../../rest/models/docs-azure';
import {
  AnthropicError,
  AnthropicMessage,
  AnthropicStreamEvent,
  BedrockError,
  ConverseResponse,
  LlamaResponse,
  NovaInvokeResponse,
} from '../../../rest/models/docs-bedrock';
import {
  BatchEmbedContentsResponse,
  EmbedContentResponse,
  GenerateContentResponse,
  GeminiModel,
  GeminiModelList,
  GoogleError,
} from '../../../rest/models/docs-gemini';
import { HTTPValidationErrorSchema } from '../../../rest/shared/openapi';
import { startInTemp, type Started } from './server';
import { sseData as sseDataOf } from '../../shared/sse';

/**
 * The answers the OpenAPI documents promise are the answers the services give: each schema a
 * document names for a status and media type parses what a started server sends for it, on the
 * offline models.
 */
let p: Started;
let key: string;
beforeAll(async () => {
  p = await startInTemp('all');
  key = p.bootstrap!.values.api_key!;
}, 60_000);
afterAll(() => p.stop());

async function call(path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${p.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** Parses `text` as JSON with the documented schema; the zod error names the field that drifted. */
const conforms = (schema: z.ZodType, text: string) => expect(schema.safeParse(JSON.parse(text)).error).toBeUndefined();
const sseData = (text: string) => sseDataOf(text).filter((d) => d !== '[DONE]');

const SYSTEM = 'Glaciers retreat as the climate warms.';
const QUESTION = 'Why do glaciers retreat?';
const AZURE = '/proxy/api/v1/azure/openai/deployments';
const chat = {
  messages: [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: QUESTION },
  ],
};
const gemini = { systemInstruction: { parts: [{ text: SYSTEM }] }, contents: [{ role: 'user', parts: [{ text: QUESTION }] }] };
const converse = {
  system: [{ text: SYSTEM }],
  messages: [{ role: 'user', content: [{ text: QUESTION }] }],
  inferenceConfig: { maxTokens: 100 },
};
const anthropic = {
  anthropic_version: 'bedrock-2023-05-31',
  max_tokens: 100,
  system: SYSTEM,
  messages: [{ role: 'user', content: QUESTION }],
};

describe('the gateway answers as its OpenAPI document says', () => {
  it('its own paths: the catalog, usage, and their error', async () => {
    conforms(ModelList, (await call('/proxy/api/v1/models')).text);
    conforms(Usage, (await call('/proxy/api/v1/usage')).text);
    const refused = await call('/proxy/api/v1/models', undefined, { 'api-key': '' });
    expect(refused.status).toBe(401);
    conforms(GatewayError, refused.text);
  });

  it('group A: a chat completion, its stream chunks (with usage), embeddings, an image, and errors', async () => {
    conforms(ChatCompletion, (await call(`${AZURE}/local-chat/chat/completions?api-version=2024-10-21`, chat)).text);
    const streamed = await call(`${AZURE}/local-chat/chat/completions?api-version=2024-10-21`, {
      ...chat,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(streamed.type).toMatch(/^text\/event-stream/);
    const chunks = sseData(streamed.text);
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) conforms(ChatCompletionChunk, c);
    for (const encoding_format of ['float', 'base64']) {
      conforms(
        Embeddings,
        (await call(`${AZURE}/local-embed/embeddings?api-version=2024-10-21`, { input: ['glaciers', 'seas'], encoding_format })).text,
      );
    }
    for (const response_format of ['url', 'b64_json']) {
      conforms(
        ImagesResponse,
        (
          await call(`${AZURE}/local-image/images/generations?api-version=2024-10-21`, {
            prompt: 'a glacier',
            size: '256x256',
            response_format,
          })
        ).text,
      );
    }
    const missing = await call(`${AZURE}/local-chat/chat/completions`, chat);
    expect(missing.status).toBe(400);
    conforms(AzureError, missing.text);
    const unknown = await call(`${AZURE}/no-such-model/chat/completions?api-version=2024-10-21`, chat);
    expect(unknown.status).toBe(404);
    conforms(AzureError, unknown.text);
  });

  it('group B: generateContent, both stream framings, embeddings, the model list and a model, and errors', async () => {
    const base = '/proxy/api/v1/gemini/v1beta/models';
    conforms(GenerateContentResponse, (await call(`${base}/local-chat:generateContent`, gemini)).text);
    const array = await call(`${base}/local-chat:streamGenerateContent`, gemini);
    expect(array.type).toMatch(/^application\/json/);
    for (const c of JSON.parse(array.text) as unknown[]) conforms(GenerateContentResponse, JSON.stringify(c));
    const sse = await call(`${base}/local-chat:streamGenerateContent?alt=sse`, gemini);
    expect(sse.type).toMatch(/^text\/event-stream/);
    for (const c of sseData(sse.text)) conforms(GenerateContentResponse, c);
    conforms(EmbedContentResponse, (await call(`${base}/local-embed:embedContent`, { content: { parts: [{ text: 'glaciers' }] } })).text);
    conforms(
      BatchEmbedContentsResponse,
      (await call(`${base}/local-embed:batchEmbedContents`, { requests: [{ content: { parts: [{ text: 'a' }] } }] })).text,
    );
    conforms(GeminiModelList, (await call(base)).text);
    conforms(GeminiModel, (await call(`${base}/local-chat`)).text);
    const bad = await call(`${base}/local-chat:generateContent`, { contents: [] });
    expect(bad.status).toBe(400);
    conforms(GoogleError, bad.text);
  });

  it('group C: Converse, Anthropic Messages and its events, the three native /invoke answers, and errors', async () => {
    for (const family of ['nova', 'llama'])
      conforms(ConverseResponse, (await call(`/proxy/api/v1/bedrock/v1/messages/${family}?modelId=local-chat`, converse)).text);
    conforms(ConverseResponse, (await call('/proxy/api/v1/bedrock/model/local-chat/converse', converse)).text);
    conforms(AnthropicMessage, (await call('/proxy/api/v1/bedrock/v1/messages/anthropic?modelId=local-chat', anthropic)).text);
    const events = await call('/proxy/api/v1/bedrock/v1/messages/anthropic?modelId=local-chat', { ...anthropic, stream: true });
    expect(events.type).toMatch(/^text\/event-stream/);
    for (const e of sseData(events.text)) conforms(AnthropicStreamEvent, e);
    const invoke = (body: unknown) => call('/proxy/api/v1/bedrock/model/local-chat/invoke', body);
    conforms(AnthropicMessage, (await invoke(anthropic)).text);
    conforms(NovaInvokeResponse, (await invoke({ messages: converse.messages, inferenceConfig: { max_new_tokens: 100 } })).text);
    conforms(LlamaResponse, (await invoke({ prompt: QUESTION, max_gen_len: 50 })).text);
    const noModel = await call('/proxy/api/v1/bedrock/v1/messages/nova', converse);
    expect(noModel.status).toBe(400);
    conforms(BedrockError, noModel.text);
    const anthropicBad = await call('/proxy/api/v1/bedrock/v1/messages/anthropic?modelId=local-chat', { messages: [] });
    expect(anthropicBad.status).toBe(400);
    conforms(AnthropicError, anthropicBad.text);
  });
});

describe('the chat proxy answers as its OpenAPI document says', () => {
  let body: Record<string, unknown>;
  beforeAll(async () => {
    const v = p.bootstrap!.values;
    const login = await fetch(`${p.url}/auth/api/v1/oauth/connect/user/login`, {
      method: 'POST',
      body: new URLSearchParams({ username: v.username, password: v.password }),
    });
    const token = ((await login.json()) as { access_token: string }).access_token;
    body = { request: { user_cred: { token, client: { tenant_id: v.tenant_id } } }, query: QUESTION, api_key: key };
  });

  it('an answer, its chunks in both framings, the sources, and its errors', async () => {
    conforms(Answer, (await call('/api/generate_answer', body)).text);
    const sse = await call('/api/stream_generate_answer', body);
    expect(sse.type).toMatch(/^text\/event-stream/);
    for (const c of sseData(sse.text)) conforms(AnswerChunk, c);
    const ndjson = await call('/api/stream_generate_answer', body, { accept: 'application/x-ndjson' });
    expect(ndjson.type).toMatch(/^application\/x-ndjson/);
    for (const line of ndjson.text.split('\n').filter(Boolean)) conforms(AnswerChunk, line);
    conforms(Sources, (await call('/api/get_sources', { request: { ...(body.request as object), query: QUESTION }, chat_hist: [] })).text);
    const refused = await call('/api/generate_answer', { ...body, request: { user_cred: { token: 'nope', client: { tenant_id: 't' } } } });
    expect(refused.status).toBe(401);
    conforms(ChatError, refused.text);
    const invalid = await call('/api/generate_answer', { ...body, is_session: 'maybe' });
    expect(invalid.status).toBe(422);
    conforms(HTTPValidationErrorSchema, invalid.text);
  });
});
