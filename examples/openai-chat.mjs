// The OpenAI SDK (openai 6) through the gateway's OpenAI-compatible door: a chat with a tool round trip.
// Run: eval "$(npm run -s platform -- credentials --shell)"; node examples/openai-chat.mjs
import OpenAI from 'openai';

const BASE = process.env.BASE ?? 'http://127.0.0.1:8080';
const client = new OpenAI({ baseURL: `${BASE}/proxy/api/v1`, apiKey: process.env.API_KEY });

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'The current weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];
const messages = [{ role: 'user', content: 'What is the weather in Paris?' }];

const first = await client.chat.completions.create({ model: 'local-chat', messages, tools });
const call = first.choices[0].message.tool_calls[0];
console.log('tool call:', call.function.name, call.function.arguments);

messages.push(first.choices[0].message, {
  role: 'tool',
  tool_call_id: call.id,
  content: JSON.stringify({ temperature_c: 21, sky: 'sunny' }),
});
const stream = await client.chat.completions.create({ model: 'local-chat', messages, tools, stream: true });
process.stdout.write('answer: ');
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta.content ?? '');
process.stdout.write('\n');
