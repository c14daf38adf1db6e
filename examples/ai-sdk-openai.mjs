// The Vercel AI SDK (ai 6) with @ai-sdk/openai's defaults (the Responses API): a tool the SDK runs itself.
// Run: eval "$(npm run -s platform -- credentials --shell)"; node examples/ai-sdk-openai.mjs
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';

const BASE = process.env.BASE ?? 'http://127.0.0.1:8080';
const openai = createOpenAI({ baseURL: `${BASE}/proxy/api/v1`, apiKey: process.env.API_KEY });

const { text, steps } = await generateText({
  model: openai('local-chat'),
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
console.log('tool call:', JSON.stringify(steps[0].toolCalls.map((c) => [c.toolName, c.input])));
console.log('answer:', text);
