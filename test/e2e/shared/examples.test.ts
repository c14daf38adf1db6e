import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { childEnv, ROOT, startInTemp, type Started } from './server';

const run = promisify(execFile);

/**
 * The README's client examples (examples/*.mjs), each run as a user runs it: a plain `node` process
 * with the variables `platform credentials --shell` exports and BASE, against a started platform
 * on the offline models. Each SDK is the version the project installs.
 */
describe('the client examples run as the README says', () => {
  let p: Started;
  let env: Record<string, string>;

  beforeAll(async () => {
    p = await startInTemp('all');
    env = Object.fromEntries(Object.entries(p.bootstrap!.values).map(([k, v]) => [k.toUpperCase(), String(v)]));
    env.BASE = p.url;
  }, 60_000);
  afterAll(() => p?.stop());

  const example = async (name: string) => {
    const { stdout } = await run(process.execPath, [join(ROOT, 'examples', name)], { cwd: ROOT, env: childEnv(env), timeout: 60_000 });
    return stdout;
  };

  it('openai: chat completions with a tool round trip, the answer streamed', async () => {
    const out = await example('openai-chat.mjs');
    expect(out).toContain('tool call: get_weather {"city":"Paris"}');
    expect(out).toContain('answer: get_weather returned: {"temperature_c":21,"sky":"sunny"}');
  }, 60_000);

  it('openai: the Responses API with a function call and its output', async () => {
    const out = await example('openai-responses.mjs');
    expect(out).toContain('tool call: get_weather {"city":"Paris"}');
    expect(out).toContain('answer: get_weather returned: {"temperature_c":21,"sky":"sunny"}');
  }, 60_000);

  it('the Vercel AI SDK with @ai-sdk/openai and @ai-sdk/azure defaults, running the tool itself', async () => {
    for (const name of ['ai-sdk-openai.mjs', 'ai-sdk-azure.mjs']) {
      const out = await example(name);
      expect(out).toContain('tool call: [["get_weather",{"city":"Paris"}]]');
      expect(out).toContain('answer: get_weather returned: {"city":"Paris","temperature_c":21,"sky":"clear"}');
    }
  }, 120_000);

  it("Anthropic's SDK: a tool round trip streamed, and token counting", async () => {
    const out = await example('anthropic.mjs');
    expect(out).toContain('tool call: get_weather {"city":"Paris"}');
    expect(out).toContain('answer: get_weather returned: {"temperature_c": 21, "sky": "sunny"}');
    expect(out).toMatch(/input tokens: [1-9]\d*/);
  }, 60_000);

  it('@google/genai and the AWS SDK (Converse): a tool round trip, the answer streamed, tokens counted', async () => {
    const genai = await example('google-genai.mjs');
    expect(genai).toContain('tool call: get_weather {"city":"Paris"}');
    expect(genai).toContain('answer: get_weather returned: {"temperature_c":21,"sky":"sunny"}');
    expect(genai).toMatch(/tokens: [1-9]\d*/);
    const bedrock = await example('bedrock-converse.mjs');
    expect(bedrock).toContain('tool call: get_weather {"city":"Paris"} tool_use');
    expect(bedrock).toContain('answer: get_weather returned: {"temperature_c":21,"sky":"sunny"}');
    expect(bedrock).toMatch(/tokens: [1-9]\d*/);
  }, 60_000);

  it('openid-client 6 and jose: discovery, a token for one audience, introspection, the audience checked offline', async () => {
    const out = await example('openid-client.mjs');
    expect(out).toContain(`introspection: true ["search"] ${env.CLIENT_ID}`);
    expect(out).toContain('verified for search:');
    expect(out).toContain('verified for models: no, ERR_JWT_CLAIM_VALIDATION_FAILED');
  }, 60_000);

  it('urql, graphql-sse and the graphql-tools executor stream the same answer', async () => {
    const out = await example('graphql-subscriptions.mjs');
    expect(out).toMatch(/urql: [1-9]\d* characters/);
    expect(out).toContain('same answer: true');
  }, 60_000);
});
