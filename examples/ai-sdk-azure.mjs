// The Vercel AI SDK (ai 6) with @ai-sdk/azure's defaults (the Responses API on Azure's v1 layout), streamed.
// Run: eval "$(npm run -s platform -- credentials --shell)"; node examples/ai-sdk-azure.mjs
import { createAzure } from '@ai-sdk/azure';
import { stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';

const BASE = process.env.BASE ?? 'http://127.0.0.1:8080';
const azure = createAzure({ baseURL: `${BASE}/proxy/api/v1/azure/openai`, apiKey: process.env.API_KEY });

const result = streamText({
  model: azure('local-chat'),
  prompt: 'What is the weather in Paris?',
  tools: {
    get_weather: tool({
      description: 'The current weather in a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, temperature_c: 21, sky: 'clear' }),
    }),
  },
  stopWhen: stepCountIs(3),
});
process.stdout.write('answer: ');
for await (const piece of result.textStream) process.stdout.write(piece);
process.stdout.write('\n');
console.log('tool call:', JSON.stringify((await result.steps)[0].toolCalls.map((c) => [c.toolName, c.input])));
