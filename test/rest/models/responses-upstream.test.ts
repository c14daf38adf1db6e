import { join } from 'node:path';
import Database from 'better-sqlite3';
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { eventually } from '../../shared/wait';
import { modelsInProcess, type ModelsInProcess } from './fixture';

const OC_KEY = 'ollama-responses-token-0123456789';

/**
 * The Responses API over a model on an OpenAI-compatible server (a fake speaking the real wire),
 * through the openai SDK on a listening socket: a client that leaves mid-stream ends the model call
 * (the upstream request is cut, usage records 499 under `openai.responses`), and an upstream that
 * fails midway ends the stream with OpenAI's `error` event.
 */
describe('model gateway: the Responses API over a vendor upstream', () => {
  let p: ModelsInProcess;
  let upstream: FakeOpenAi;
  let client: OpenAI;
  beforeAll(async () => {
    upstream = await startFakeOpenAi({ answer: 'The local server says glaciers melt.' });
    process.env.E2E_RESPONSES_OC_KEY = OC_KEY;
    p = await modelsInProcess({
      catalog: {
        models: [
          ...DEFAULT_CATALOG.models,
          {
            id: 'oc-chat',
            group: 'A',
            kind: 'chat',
            contextLength: 8192,
            upstream: {
              provider: 'openai-compatible',
              baseUrl: `${upstream.url}/v1`,
              model: 'llama3.2',
              credentialEnv: 'E2E_RESPONSES_OC_KEY',
            },
          },
        ],
      },
    });
    client = new OpenAI({ baseURL: `${await p.listen()}/proxy/api/v1`, apiKey: p.key, maxRetries: 0 });
  });
  afterAll(async () => {
    await p?.close();
    await upstream?.close();
    delete process.env.E2E_RESPONSES_OC_KEY;
  });

  /** The usage rows of oc-chat, newest last (read from the models service's store). */
  const rows = () => {
    const db = new Database(join(p.config.PLATFORM_DATA_DIR, 'models.db'), { readonly: true, fileMustExist: true });
    try {
      return db.prepare("SELECT route, status FROM usage WHERE model = 'oc-chat' ORDER BY id").all() as { route: string; status: number }[];
    } finally {
      db.close();
    }
  };
  const recorded = async (n: number) => {
    await eventually(() => rows().length >= n);
    return rows();
  };

  it('answers from the upstream, recorded under openai.responses', async () => {
    const before = rows().length;
    const r = await client.responses.create({ model: 'oc-chat', input: 'Why do glaciers melt?' });
    expect(r.output_text).toBe('The local server says glaciers melt.');
    expect(upstream.requests.at(-1)!.json).toMatchObject({
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'Why do glaciers melt?' }],
    });
    expect((await recorded(before + 1)).at(-1)).toEqual({ route: 'openai.responses', status: 200 });
  });

  it('ends the model call when the client leaves mid-stream: the upstream is cut, usage shows 499', async () => {
    upstream.script({ answer: ['one ', 'two ', 'three ', 'four '], stallAfter: 3 });
    const before = rows().length;
    const sent = upstream.requests.length;
    const stream = await client.responses.create({ model: 'oc-chat', input: 'Count slowly, please.', stream: true });
    let seen = '';
    for await (const e of stream) {
      if (e.type === 'response.output_text.delta') seen += e.delta;
      if (seen.includes('two')) break;
    }
    const cut = upstream.requests[sent];
    await cut.cut;
    expect(cut.wasCut).toBe(true);
    expect(seen).toBe('one two ');
    expect((await recorded(before + 1)).at(-1)).toEqual({ route: 'openai.responses', status: 499 });
  });

  it("ends with OpenAI's error event when the upstream fails midway (usage 502)", async () => {
    upstream.script({ answer: ['one ', 'two ', 'three ', 'four '], resetAfter: 3 });
    const before = rows().length;
    const seen: ResponseStreamEvent[] = [];
    for await (const e of await client.responses.create({ model: 'oc-chat', input: 'Count, please.', stream: true })) seen.push(e);
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ type: 'error', param: null, sequence_number: seen.length - 1 });
    expect(typeof (last as { message?: unknown }).message).toBe('string');
    expect(seen.map((e) => e.type)).not.toContain('response.completed');
    expect(seen.filter((e) => e.type === 'response.output_text.delta').length).toBeGreaterThan(0);
    expect((await recorded(before + 1)).at(-1)).toEqual({ route: 'openai.responses', status: 502 });
  });
});
