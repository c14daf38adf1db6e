import { createAzure } from '@ai-sdk/azure';
import { embed, generateText, stepCountIs, streamText, tool } from 'ai';
import { AzureOpenAI } from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import request from 'supertest';
import { z } from 'zod';
import { hashingEmbedder } from '../../../core/shared/text/embedder';
import { modelsInProcess, type ModelsInProcess } from './fixture';

/**
 * The OpenAI chat wire's tools on Azure's layouts, in process on an ephemeral port: the AzureOpenAI
 * class on group A's deployment paths, and the Vercel AI SDK's `@ai-sdk/azure` chat and embedding
 * models on Azure's v1 layout (`createAzure({ baseURL: '<base>/proxy/api/v1/azure/openai' })`).
 */
const weatherTool: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The current weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const QUESTION = 'What is the weather in Paris?';
const WEATHER = { city: 'Paris', temperature: 21, sky: 'sunny' };

describe("tools on Azure's layouts", () => {
  let p: ModelsInProcess;
  let origin: string;
  beforeAll(async () => {
    p = await modelsInProcess();
    origin = await p.listen();
  });
  afterAll(() => p?.close());

  it('AzureOpenAI on the deployment path: a tools round trip, non-streamed and streamed', async () => {
    const client = new AzureOpenAI({
      endpoint: `${origin}/proxy/api/v1/azure`,
      apiKey: p.key,
      apiVersion: '2024-10-21',
      deployment: 'local-chat',
      maxRetries: 0,
    });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: QUESTION }];
    const first = await client.chat.completions.create({
      model: 'local-chat',
      messages,
      tools: [weatherTool],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    const call = first.choices[0].message.tool_calls![0] as { id: string; function: { name: string; arguments: string } };
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(WEATHER) });
    const answer = await client.chat.completions.stream({ model: 'local-chat', messages, tools: [weatherTool] }).finalChatCompletion();
    expect(answer.choices[0].finish_reason).toBe('stop');
    expect(answer.choices[0].message.content).toContain('get_weather returned: {"city":"Paris","temperature":21,"sky":"sunny"}');

    const streamed = await client.chat.completions
      .stream({ model: 'local-chat', messages: [{ role: 'user', content: QUESTION }], tools: [weatherTool] })
      .finalChatCompletion();
    expect(streamed.choices[0].message.tool_calls).toEqual([
      { id: call.id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);
    expect(streamed.choices[0].finish_reason).toBe('tool_calls');
  });

  it('@ai-sdk/azure chat model on the v1 layout: generateText and streamText run the tool and answer from its result', async () => {
    const azure = createAzure({ baseURL: `${origin}/proxy/api/v1/azure/openai`, apiKey: p.key });
    const asked: unknown[] = [];
    const tools = {
      get_weather: tool({
        description: 'The current weather in a city',
        inputSchema: z.object({ city: z.string() }),
        execute: async (args) => (asked.push(args), WEATHER),
      }),
    };
    const r = await generateText({ model: azure.chat('local-chat'), prompt: QUESTION, tools, stopWhen: stepCountIs(3) });
    expect(asked).toEqual([{ city: 'Paris' }]);
    expect(r.steps).toHaveLength(2);
    expect(r.steps[0].finishReason).toBe('tool-calls');
    expect(r.text).toContain('"sky":"sunny"');
    const s = streamText({ model: azure.chat('local-chat'), prompt: QUESTION, tools, stopWhen: stepCountIs(3) });
    expect(await s.text).toBe(r.text);
    expect(asked).toHaveLength(2);
  });

  it('@ai-sdk/azure embedding model on the v1 layout', async () => {
    const azure = createAzure({ baseURL: `${origin}/proxy/api/v1/azure/openai`, apiKey: p.key });
    const { embedding } = await embed({ model: azure.textEmbedding('local-embed'), value: 'glaciers retreat' });
    const [same] = await hashingEmbedder().embed(['glaciers retreat']);
    expect(embedding).toEqual(Array.from(same));
  });

  it("Azure's v1 paths take api-version v1, preview or none, the model in the body", async () => {
    const body = { model: 'local-chat', messages: [{ role: 'user', content: QUESTION }], tools: [weatherTool] };
    for (const path of [
      '/azure/openai/v1/chat/completions?api-version=v1',
      '/azure/openai/v1/chat/completions?api-version=preview',
      '/azure/openai/v1/chat/completions',
      '/azure/openai/chat/completions',
    ]) {
      const res = await request(p.app).post(`/proxy/api/v1${path}`).set('api-key', p.key).send(body);
      expect(res.status).toBe(200);
      expect(res.body.choices[0].message.tool_calls[0].function.name).toBe('get_weather');
    }
    const unknown = await request(p.app)
      .post('/proxy/api/v1/azure/openai/v1/embeddings')
      .set('api-key', p.key)
      .send({ model: 'nope', input: 'x' });
    expect(unknown.body).toEqual({
      error: { message: 'The model "nope" does not exist', type: 'invalid_request_error', param: 'model', code: 'model_not_found' },
    });
  });
});
