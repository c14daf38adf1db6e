// Anthropic's SDK through the gateway's Messages API: a tool round trip, then the tokens of the question.
// Run: eval "$(npm run -s platform -- credentials --shell)"; node examples/anthropic.mjs
import Anthropic from '@anthropic-ai/sdk';

const BASE = process.env.BASE ?? 'http://127.0.0.1:8080';
const client = new Anthropic({ baseURL: `${BASE}/proxy/api/v1/anthropic`, apiKey: process.env.API_KEY });

const tools = [
  {
    name: 'get_weather',
    description: 'The current weather in a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];
const question = { role: 'user', content: 'What is the weather in Paris?' };

const first = await client.messages.create({ model: 'local-chat', max_tokens: 300, tools, messages: [question] });
const call = first.content.find((block) => block.type === 'tool_use');
console.log('tool call:', call.name, JSON.stringify(call.input));

const stream = client.messages.stream({
  model: 'local-chat',
  max_tokens: 300,
  tools,
  messages: [
    question,
    { role: 'assistant', content: first.content },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '{"temperature_c": 21, "sky": "sunny"}' }] },
  ],
});
process.stdout.write('answer: ');
stream.on('text', (text) => process.stdout.write(text));
await stream.finalMessage();
process.stdout.write('\n');
console.log('input tokens:', (await client.messages.countTokens({ model: 'local-chat', tools, messages: [question] })).input_tokens);
