import type { ChatMessage, ChatRequest, ToolDefinition } from '../../../core/models/neutral';
import { localChat, chosenTool, formatted, toolCallFor } from '../../../core/models/vendors/local';

const weather: ToolDefinition = {
  name: 'get_weather',
  description: 'The current weather in a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] }, days: { type: 'integer' } },
    required: ['city', 'unit'],
  },
};
const stock: ToolDefinition = {
  name: 'getStockPrice',
  description: 'A share price',
  parameters: { type: 'object', properties: { ticker: { type: 'string' } } },
};
const ask = (text: string): ChatMessage => ({ role: 'user', text });

async function run(req: Omit<ChatRequest, 'model'>) {
  const s = await localChat().chat({ model: 'local-chat', ...req });
  let text = '';
  for await (const p of s.pieces) text += p;
  return { text, ...(await s.done) };
}

describe('local-chat with tools', () => {
  it('calls the tool whose name or description shares a word with the question, its arguments filled from the question', async () => {
    const r = await run({ messages: [ask('What is the weather in Paris?')], tools: [stock, weather] });
    expect(r.finishReason).toBe('tool_calls');
    expect(r.text).toBe('');
    expect(r.toolCalls).toHaveLength(1);
    expect(r.toolCalls![0].name).toBe('get_weather');
    expect(JSON.parse(r.toolCalls![0].arguments)).toEqual({ city: 'Paris', unit: 'celsius' });
    expect(r.toolCalls![0].id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(r.usage.completionTokens).toBeGreaterThan(0);
  });

  it('calls none when no tool matches or the choice is none, and the one named or the best when required', () => {
    expect(chosenTool({ messages: [ask('Tell me a joke')], tools: [weather] })).toBeUndefined();
    expect(chosenTool({ messages: [ask('weather in Oslo')], tools: [weather], toolChoice: { type: 'none' } })).toBeUndefined();
    expect(chosenTool({ messages: [ask('Tell me a joke')], tools: [weather, stock], toolChoice: { type: 'required' } })?.name).toBe(
      'get_weather',
    );
    expect(
      chosenTool({ messages: [ask('weather in Oslo')], tools: [weather, stock], toolChoice: { type: 'tool', name: 'getStockPrice' } })
        ?.name,
    ).toBe('getStockPrice');
    expect(chosenTool({ messages: [ask('the stock price of ACME')], tools: [weather, stock] })?.name).toBe('getStockPrice');
  });

  it('makes the same call for the same question (a stable id), numbers from the question', () => {
    const t: ToolDefinition = {
      name: 'add',
      parameters: { type: 'object', properties: { a: { type: 'number' }, ok: { type: 'boolean' }, tags: { type: 'array' } } },
    };
    expect(toolCallFor(t, 'add 2.5 please')).toEqual(toolCallFor(t, 'add 2.5 please'));
    expect(JSON.parse(toolCallFor(t, 'add 2.5 please').arguments)).toEqual({ a: 2.5, ok: false, tags: [] });
  });

  it('answers from the tool results once they are sent back', async () => {
    const call = toolCallFor(weather, 'What is the weather in Paris?');
    const r = await run({
      messages: [
        ask('What is the weather in Paris?'),
        { role: 'assistant', text: '', toolCalls: [call] },
        { role: 'tool', text: '{"temp_c": 21}', toolCallId: call.id },
      ],
      tools: [weather],
    });
    expect(r.finishReason).toBe('stop');
    expect(r.toolCalls).toBeUndefined();
    expect(r.text).toBe('get_weather returned: {"temp_c": 21}');
    const prose = await run({
      messages: [
        ask('What is the weather in Paris?'),
        { role: 'assistant', text: '', toolCalls: [call] },
        { role: 'tool', text: 'The weather in Paris is sunny.', toolCallId: call.id },
      ],
      tools: [weather],
    });
    expect(prose.text).toBe('The weather in Paris is sunny.');
  });

  it('answers in JSON when a response format asks for it', async () => {
    const messages = [{ role: 'system' as const, text: 'Glaciers melt when it is warm.' }, ask('Why do glaciers melt?')];
    expect(JSON.parse((await run({ messages, responseFormat: { type: 'json_object' } })).text)).toEqual({
      answer: 'Glaciers melt when it is warm.',
    });
    const schema = {
      type: 'object',
      properties: {
        reason: { type: 'string' },
        confident: { type: 'boolean' },
        score: { type: 'number' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['reason', 'confident', 'score', 'tags'],
    };
    const r = await run({ messages, responseFormat: { type: 'json_schema', name: 'why', schema } });
    expect(JSON.parse(r.text)).toEqual({ reason: 'Glaciers melt when it is warm.', confident: false, score: 0, tags: [] });
    expect(formatted({ type: 'text' }, 'plain')).toBe('plain');
  });
});
