// The AWS SDK's Bedrock Runtime client through the gateway: Converse with a tool, ConverseStream with its result, CountTokens.
// The LM key is a Bedrock API key (a bearer token); SigV4 is not used.
// Run: eval "$(npm run -s platform -- credentials --shell)"; node examples/bedrock-converse.mjs
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, CountTokensCommand } from '@aws-sdk/client-bedrock-runtime';

const BASE = process.env.BASE ?? 'http://127.0.0.1:8080';
const client = new BedrockRuntimeClient({
  endpoint: `${BASE}/proxy/api/v1/bedrock`,
  region: 'us-east-1',
  token: { token: process.env.API_KEY },
  authSchemePreference: ['httpBearerAuth'],
});

const toolConfig = {
  tools: [
    {
      toolSpec: {
        name: 'get_weather',
        description: 'The current weather in a city',
        inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      },
    },
  ],
};
const question = { role: 'user', content: [{ text: 'What is the weather in Paris?' }] };

const first = await client.send(new ConverseCommand({ modelId: 'local-chat', messages: [question], toolConfig }));
const use = first.output.message.content.find((block) => block.toolUse).toolUse;
console.log('tool call:', use.name, JSON.stringify(use.input), first.stopReason);

const out = await client.send(
  new ConverseStreamCommand({
    modelId: 'local-chat',
    toolConfig,
    messages: [
      question,
      first.output.message,
      { role: 'user', content: [{ toolResult: { toolUseId: use.toolUseId, content: [{ json: { temperature_c: 21, sky: 'sunny' } }] } }] },
    ],
  }),
);
process.stdout.write('answer: ');
for await (const event of out.stream) process.stdout.write(event.contentBlockDelta?.delta?.text ?? '');
process.stdout.write('\n');
const counted = await client.send(new CountTokensCommand({ modelId: 'local-chat', input: { converse: { messages: [question] } } }));
console.log('tokens:', counted.inputTokens);
client.destroy();
