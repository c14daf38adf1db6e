// The OpenAI SDK's Responses API through the gateway: a function call, its output sent back, the answer streamed.
// Run: eval "$(npm run -s platform -- credentials --shell)"; node examples/openai-responses.mjs
import OpenAI from 'openai';

const BASE = process.env.BASE ?? 'http://127.0.0.1:8080';
const client = new OpenAI({ baseURL: `${BASE}/proxy/api/v1`, apiKey: process.env.API_KEY });

const tools = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'The current weather in a city',
    strict: false,
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];
const input = [{ role: 'user', content: 'What is the weather in Paris?' }];

const first = await client.responses.create({ model: 'local-chat', input, tools, store: false });
const call = first.output.find((item) => item.type === 'function_call');
console.log('tool call:', call.name, call.arguments);

input.push(call, { type: 'function_call_output', call_id: call.call_id, output: JSON.stringify({ temperature_c: 21, sky: 'sunny' }) });
const stream = await client.responses.create({ model: 'local-chat', input, tools, store: false, stream: true });
process.stdout.write('answer: ');
for await (const event of stream) if (event.type === 'response.output_text.delta') process.stdout.write(event.delta);
process.stdout.write('\n');
