import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import OpenAI, { BadRequestError } from 'openai';
import request from 'supertest';
import { hashingEmbedder } from '../../../core/shared/text/embedder';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { groupCCatalog, modelsInProcess, type ModelsInProcess } from './fixture';

/**
 * Token ids as embedding input (issue 30): LangChain's OpenAIEmbeddings sends each text as its
 * cl100k_base token ids (tiktoken, `input` an array of arrays of integers) with no encoding_format,
 * so the openai SDK asks for base64. The built-in embedder gets them decoded with cl100k_base (the
 * same vector as the text's); an OpenAI-wire upstream gets them as they came; usage counts them
 * exactly; a bad id is a 400 in OpenAI's error format naming `input`.
 */
const TEXTS = ['Glaciers retreat as the climate warms.', 'Sourdough bread needs a starter.'];
const embedder = hashingEmbedder();

describe('token ids as embedding input', () => {
  let upstream: FakeOpenAi;
  let p: ModelsInProcess;
  let client: OpenAI;
  const azure = (model: string) => `/proxy/api/v1/azure/openai/deployments/${model}/embeddings?api-version=2024-10-21`;
  beforeAll(async () => {
    upstream = await startFakeOpenAi();
    const catalog = groupCCatalog();
    catalog.models.push({
      id: 'oc-embed',
      group: 'A',
      kind: 'embedding',
      contextLength: 8191,
      upstream: { provider: 'openai-compatible', baseUrl: `${upstream.url}/v1`, model: 'nomic' },
    } as never);
    p = await modelsInProcess({ catalog });
    client = new OpenAI({ baseURL: `${await p.listen()}/proxy/api/v1`, apiKey: p.key, maxRetries: 0 });
  });
  afterAll(async () => {
    await p?.close();
    await upstream?.close();
  });

  it("the openai SDK as LangChain calls it (arrays of cl100k ids, no encoding_format: base64): the texts' own vectors, the ids counted", async () => {
    const ids = TEXTS.map((t) => cl100k(t));
    const r = await client.embeddings.create({ model: 'local-embed', input: ids });
    const want = await embedder.embed(TEXTS);
    expect(r.data.map((d) => d.index)).toEqual([0, 1]);
    r.data.forEach((d, i) => expect(d.embedding).toEqual(Array.from(want[i])));
    expect(r.usage).toEqual({ prompt_tokens: ids[0].length + ids[1].length, total_tokens: ids[0].length + ids[1].length });
  });

  it('float, one array of ids, and the same through the Azure door over raw HTTP', async () => {
    const ids = cl100k(TEXTS[0]);
    const want = Array.from((await embedder.embed([TEXTS[0]]))[0]);
    const sdk = await client.embeddings.create({ model: 'local-embed', input: ids, encoding_format: 'float' });
    expect(sdk.data[0].embedding).toEqual(want);
    const raw = await request(p.app).post(azure('local-embed')).set('api-key', p.key).send({ input: ids });
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({
      object: 'list',
      model: 'local-embed',
      usage: { prompt_tokens: ids.length, total_tokens: ids.length },
    });
    expect(raw.body.data[0].embedding).toEqual(want);
  });

  it("an OpenAI-wire upstream gets the ids as they came, ids past cl100k's vocabulary included", async () => {
    const ids = [[128_000, 9906, 1917], [15339]];
    const before = upstream.requests.length;
    const r = await client.embeddings.create({ model: 'oc-embed', input: ids, encoding_format: 'float' });
    expect(r.data).toHaveLength(2);
    expect(upstream.requests[before].json).toMatchObject({ model: 'nomic', input: ids });
    // The upstream's own count: the fake counts 3 per input.
    expect(r.usage.prompt_tokens).toBe(6);
  });

  it("refuses bad ids with a 400 in OpenAI's format naming input", async () => {
    const cases: [unknown, RegExp, string][] = [
      [[[1, -2]], /input\[0\]\[1\] is -2/, 'invalid_request_error'],
      [[[1, 2.5]], /input\[0\]\[1\] is 2.5/, 'invalid_request_error'],
      [[[1, '2']], /input\[0\]\[1\] is "2"/, 'invalid_request_error'],
      [[[]], /input\[0\] is empty/, 'invalid_request_error'],
      [[[1], 'two'], /input\[1\] is not an array of token ids/, 'invalid_request_error'],
      [['one', [2]], /input\[1\] is not a string/, 'invalid_request_error'],
      [[[9906, 100_261]], /Invalid token id 100261 at input\[0\]\[1\]: not a token of cl100k_base/, 'invalid_token_id'],
      [[[9906], [1, 2, 300_000]], /Invalid token id 300000 at input\[1\]\[2\]/, 'invalid_token_id'],
    ];
    for (const [input, message, code] of cases) {
      const r = await request(p.app).post(azure('local-embed')).set('api-key', p.key).send({ input });
      expect({ input, status: r.status }).toEqual({ input, status: 400 });
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param: 'input', code });
      expect(r.body.error.message).toMatch(message);
    }
    const long = await request(p.app)
      .post(azure('local-embed'))
      .set('api-key', p.key)
      .send({ input: [Array.from({ length: 8193 }, () => 9906)] });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({
      code: 'context_length_exceeded',
      message: "Input 0 has 8193 tokens; the model's maximum is 8192.",
    });
    await expect(client.embeddings.create({ model: 'local-embed', input: [[-1]] })).rejects.toBeInstanceOf(BadRequestError);
  });
});
