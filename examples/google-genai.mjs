// Google's @google/genai SDK (2.x) through the gateway's Gemini route: a function call and its response, then tokens counted.
// Run: eval "$(npm run -s platform -- credentials --shell)"; node examples/google-genai.mjs
import { GoogleGenAI } from '@google/genai';

const BASE = process.env.BASE ?? 'http://127.0.0.1:8080';
const ai = new GoogleGenAI({ apiKey: process.env.API_KEY, httpOptions: { baseUrl: `${BASE}/proxy/api/v1/gemini` } });

const config = {
  tools: [
    {
      functionDeclarations: [
        {
          name: 'get_weather',
          description: 'The current weather in a city',
          parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
    },
  ],
};
const question = { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] };

const first = await ai.models.generateContent({ model: 'local-chat', contents: [question], config });
const call = first.functionCalls[0];
console.log('tool call:', call.name, JSON.stringify(call.args));

const stream = await ai.models.generateContentStream({
  model: 'local-chat',
  config,
  contents: [
    question,
    first.candidates[0].content,
    { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name, response: { temperature_c: 21, sky: 'sunny' } } }] },
  ],
});
process.stdout.write('answer: ');
for await (const chunk of stream) process.stdout.write(chunk.text ?? '');
process.stdout.write('\n');
console.log('tokens:', (await ai.models.countTokens({ model: 'local-chat', contents: [question] })).totalTokens);
