import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { openModelsCore, type ModelsCore } from '../../../core/models';
import { sqliteModelsStores } from '../../../core/models/sqlite';
import type { CatalogModel } from '../../../core/models/catalog/catalog';
import type { ToolDefinition } from '../../../core/models/neutral';
import { inlineOffload, type Offload } from '../../../core/models/offload/offload';
import type { KeyCaller } from '../../../core/models/service';
import { hashingVectors } from '../../../core/shared/text/embedder';
import { callStatus } from '../../../edge/http/call-status';

/**
 * Large structures go where long texts go (issue 30: eight callers sending 1 MB tool schemas held the
 * event loop): the tools' definitions and a response schema are counted with the prompt, by the
 * offload pool (a worker thread) once they are long, and against the context length; many
 * embedding inputs are embedded there, token ids decoded there. Behaviour, not time: which jobs the
 * pool is given.
 */
function recording() {
  const jobs: { name: string; size: number; args: unknown[] }[] = [];
  const inner = inlineOffload();
  const offload: Offload = {
    run: (name, args, size, signal) => {
      jobs.push({ name, size, args });
      return inner.run(name, args, size, signal);
    },
    close: async () => undefined,
  };
  return { jobs, offload };
}

/** Tools of about `bytes` of JSON Schema in all. */
const tools = (bytes: number): ToolDefinition[] =>
  Array.from({ length: 16 }, (_, t) => ({
    name: `tool_${t}`,
    description: `Tool ${t}`,
    parameters: {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: Math.ceil(bytes / 16 / 60) }, (_, i) => [`field_${t}_${i}`, { type: 'string', description: `Field ${i}` }]),
      ),
    },
  }));

describe('large structures in model calls', () => {
  const { jobs, offload } = recording();
  let core: ModelsCore;
  let caller: KeyCaller;
  let chatModel: CatalogModel;
  let embedModel: CatalogModel;
  beforeAll(async () => {
    core = openModelsCore({ stores: sqliteModelsStores(':memory:'), offload, statusOf: callStatus });
    caller = await core.keyCaller((await core.keys.create({ name: 'large', tenant: 't' })).apiKey);
    chatModel = core.catalog.find((m) => m.id === 'local-chat')!;
    embedModel = core.catalog.find((m) => m.id === 'local-embed')!;
  });
  afterAll(() => core.close());
  beforeEach(() => void jobs.splice(0));

  it('counts a large tool set with the prompt in the pool, and refuses it over the context length', async () => {
    const big = tools(200_000);
    const call = core.service.chat(
      { model: chatModel, route: 'test', messages: [{ role: 'user', text: 'Which tool?' }], tools: big },
      { caller },
    );
    await expect(call).rejects.toThrow(`This model's maximum context length is ${chatModel.contextLength} tokens`);
    const count = jobs.find((j) => j.name === 'count')!;
    expect(count.size).toBeGreaterThan(150_000);
    // The texts counted: the message, then each tool's definition as an upstream would be sent it.
    expect((count.args[0] as string[]).slice(1)).toEqual(
      big.map((t) => JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters })),
    );
  });

  it("counts a small tool set and a response schema into the prompt's tokens (usage), as vendors bill them", async () => {
    const ask = { model: chatModel, route: 'test', messages: [{ role: 'user' as const, text: 'Which tool answers?' }] };
    const plain = await core.service.chat(ask, { caller: { ...caller, options: { ...caller.options, is_cache: 0 } } });
    for await (const _ of plain.pieces);
    const withTools = await core.service.chat(
      {
        ...ask,
        tools: tools(600),
        responseFormat: { type: 'json_schema', name: 'a', schema: { type: 'object', properties: { answer: { type: 'string' } } } },
      },
      { caller: { ...caller, options: { ...caller.options, is_cache: 0 } } },
    );
    for await (const _ of withTools.pieces);
    expect((await withTools.done).usage.promptTokens).toBeGreaterThan((await plain.done).usage.promptTokens + 100);
  });

  it('embeds many inputs in the pool, and decodes token ids there (cl100k_base), counting the ids', async () => {
    const texts = Array.from({ length: 300 }, (_, i) => `text number ${i} about glaciers and the sea`);
    const r = await core.service.embed({ model: embedModel, route: 'test', inputs: texts }, { caller });
    expect(jobs.map((j) => j.name)).toEqual(['countEach', 'embed']);
    expect(jobs[1].size).toBeGreaterThan(8192);
    expect(r.vectors).toEqual(hashingVectors(texts));

    jobs.splice(0);
    const ids = [cl100k('Glaciers retreat as the climate warms.'), cl100k('Sourdough needs a starter.')];
    const byIds = await core.service.embed({ model: embedModel, route: 'test', inputs: ids }, { caller });
    expect(jobs.map((j) => j.name)).toEqual(['decode', 'embed']);
    expect(byIds.vectors).toEqual(hashingVectors(['Glaciers retreat as the climate warms.', 'Sourdough needs a starter.']));
    expect(byIds.promptTokens).toBe(ids[0].length + ids[1].length);
  });
});
