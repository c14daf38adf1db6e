import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modelsClient, type RemoteKeyCaller } from '../../../clients/models';
import { PlatformError } from '../../../core/shared/errors';
import type { CatalogModel } from '../../../core/models/catalog/catalog';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import type { ChatCall, KeyCaller, ModelsService } from '../../../core/models/service';
import type { ModelsInstance } from '../../../services/models';
import { startInTemp, type Started } from '../../e2e/shared/server';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';

/**
 * The model gateway in process and its REST client in front of the same running server must agree:
 * the same catalog, models, answers, vectors, pictures, usage and refusals for the same key.
 */
let server: Started;
let local: ModelsService<KeyCaller>;
let keyCaller: ModelsInstance['keyCaller'];
let remote: ModelsService<RemoteKeyCaller>;
let key: string;
let narrow: string;
let catalogFile: string;
let upstream: FakeOpenAi;

beforeAll(async () => {
  upstream = await startFakeOpenAi();
  catalogFile = join(tmpdir(), `catalog-models-contract-${process.pid}-${Date.now()}.json`);
  writeFileSync(
    catalogFile,
    JSON.stringify({
      models: [
        ...DEFAULT_CATALOG.models,
        {
          id: 'old-chat',
          group: 'A',
          kind: 'chat',
          upstream: { provider: 'local' },
          contextLength: 64,
          status: 'Deactivated',
          inputKinds: ['text'],
        },
        {
          id: 'tiny-chat',
          group: 'A',
          kind: 'chat',
          upstream: { provider: 'local' },
          contextLength: 16,
          inputKinds: ['text'],
        },
        {
          id: 'whisper',
          group: 'A',
          kind: 'transcription',
          upstream: { provider: 'openai-compatible', baseUrl: `${upstream.url}/v1`, model: 'whisper-1' },
          contextLength: 4000,
        },
      ],
    }),
  );
  server = await startInTemp('all', { MODELS_CATALOG_FILE: catalogFile });
  const models = server.instances.models as unknown as ModelsInstance;
  local = models.service;
  keyCaller = models.keyCaller;
  remote = modelsClient({ baseUrl: server.url });
  // The cache off, so that the second of two identical calls is not a hit for the first one's sake.
  key = `${(await models.keys.create({ name: 'contract', tenant: 'tenant-a' })).apiKey}/{"is_cache": 0}`;
  narrow = (await models.keys.create({ name: 'narrow', tenant: 'tenant-a', models: ['local-chat'] })).apiKey;
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await upstream?.close();
  rmSync(catalogFile, { force: true });
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => 'no failure',
    (e: unknown) => (e instanceof PlatformError ? [e.kind, e.message, e.code] : String(e)),
  );
/** Both faces' callers for one api-key header; the in-process one throws for a bad key, the remote one on its first call. */
/** Both faces' ctx for one api-key header: in process the key the edge would establish (rejected for a bad key), remote the header itself (refused by the gateway's edge). */
const both = (header: string) => ({ l: async () => ({ caller: await keyCaller(header) }), r: () => ({ caller: { header } }) });
/** What the REST listing can say of a model: all but its upstream's address and credentials. */
const publicView = ({ upstream, ...m }: CatalogModel) => ({ ...m, provider: upstream.provider });
const collected = async (c: ChatCall) => {
  let text = '';
  for await (const p of c.pieces) text += p;
  return { text, ...(await c.done), cache: c.cache, guard: c.guard };
};

describe('the model gateway contract (in process and REST client agree)', () => {
  it('lists the same catalog for a key, and the narrower one for a narrow key', async () => {
    const c = both(key);
    expect((await remote.listModels({}, c.r())).map(publicView)).toEqual((await local.listModels({}, await c.l())).map(publicView));
    const n = both(narrow);
    expect((await remote.listModels({}, n.r())).map((m) => m.id)).toEqual(['local-chat']);
    expect((await local.listModels({}, await n.l())).map((m) => m.id)).toEqual(['local-chat']);
  });

  it('finds a model, and refuses an unknown, a deactivated and a forbidden one alike', async () => {
    const c = both(key);
    expect(publicView(await remote.model({ id: 'local-chat' }, c.r()))).toEqual(
      publicView(await local.model({ id: 'local-chat' }, await c.l())),
    );
    for (const id of ['no-such-model', 'old-chat']) {
      const x = await failure(local.model({ id }, await c.l()));
      expect(x).not.toBe('no failure');
      expect(await failure(remote.model({ id }, c.r()))).toEqual(x);
    }
    const n = both(narrow);
    const forbidden = await failure(local.model({ id: 'local-embed' }, await n.l()));
    expect(forbidden[0]).toBe('forbidden');
    expect(await failure(remote.model({ id: 'local-embed' }, n.r()))).toEqual(forbidden);
  });

  it('answers a chat alike, streamed and whole, with the guard redacting alike', async () => {
    const c = both(key);
    const messages = [
      { role: 'system' as const, text: 'Glaciers retreat as the climate warms.' },
      { role: 'user' as const, text: 'Why do glaciers retreat? Mail ann@example.com' },
    ];
    for (const stream of [true, false]) {
      const lm = await local.model({ id: 'local-chat' }, await c.l());
      const rm = await remote.model({ id: 'local-chat' }, c.r());
      const x = await collected(await local.chat({ model: lm, route: 'test.chat', messages, stream }, await c.l()));
      const y = await collected(await remote.chat({ model: rm, route: 'test.chat', messages, stream }, c.r()));
      expect(y).toEqual(x);
      expect(x).toMatchObject({ finishReason: 'stop', cache: 'BYPASS', guard: 'redacted:email' });
      expect(x.text).toContain('Glaciers retreat');
    }
  });

  it('embeds alike, and draws the same picture', async () => {
    const c = both(key);
    const [le, re] = [await local.model({ id: 'local-embed' }, await c.l()), await remote.model({ id: 'local-embed' }, c.r())];
    const inputs = ['glaciers retreat', 'penguins keep warm'];
    const x = await local.embed({ model: le, route: 'test.embed', inputs }, await c.l());
    const y = await remote.embed({ model: re, route: 'test.embed', inputs }, c.r());
    expect(y.promptTokens).toBe(x.promptTokens);
    expect(y.vectors.map((v) => Array.from(v))).toEqual(x.vectors.map((v) => Array.from(v)));
    const [li, ri] = [await local.model({ id: 'local-image' }, await c.l()), await remote.model({ id: 'local-image' }, c.r())];
    const px = await local.generateImage({ model: li, route: 'test.image', prompt: 'a glacier at dawn' }, await c.l());
    const py = await remote.generateImage({ model: ri, route: 'test.image', prompt: 'a glacier at dawn' }, c.r());
    expect({ b64: py.b64, mimeType: py.mimeType }).toEqual({ b64: px.b64, mimeType: px.mimeType });
    expect(px.b64.length).toBeGreaterThan(100);
  });

  it('counts a prompt alike: messages, tool calls, tool results and tools (the remote count goes through the Anthropic door)', async () => {
    const c = both(key);
    const [lm, rm] = [await local.model({ id: 'local-chat' }, await c.l()), await remote.model({ id: 'local-chat' }, c.r())];
    const tools = [
      {
        name: 'get_weather',
        description: 'The weather in a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ];
    const messages = [
      { role: 'system' as const, text: 'Answer briefly.' },
      { role: 'user' as const, text: 'What is the weather in Paris?' },
      { role: 'assistant' as const, text: '', toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool' as const, text: 'Sunny, 18 degrees.', toolCallId: 'toolu_1' },
    ];
    const x = await local.countTokens({ model: lm, route: 'test.count', messages, tools }, await c.l());
    expect(await remote.countTokens({ model: rm, route: 'test.count', messages, tools }, c.r())).toEqual(x);
    expect(x.tokens).toBeGreaterThan(30);
  });

  it('transcribes alike (an OpenAI-compatible upstream behind the gateway)', async () => {
    const c = both(key);
    const [lw, rw] = [await local.model({ id: 'whisper' }, await c.l()), await remote.model({ id: 'whisper' }, c.r())];
    const audio = {
      audio: Buffer.from('RIFF$\0\0\0WAVEfmt fake audio bytes'),
      filename: 'greeting.wav',
      mimeType: 'audio/wav',
      language: 'en',
    };
    const x = await local.transcribe({ model: lw, route: 'test.audio', ...audio }, await c.l());
    expect(await remote.transcribe({ model: rw, route: 'test.audio', ...audio }, c.r())).toEqual(x);
    expect(x.text.length).toBeGreaterThan(0);
  });

  it("reports the same usage of the key's tenant", async () => {
    const c = both(key);
    const window = { from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 1000) };
    const x = await local.usage({ ...window }, await c.l());
    expect(await remote.usage({ ...window }, c.r())).toEqual(x);
    expect(x.totals.requests).toBeGreaterThan(0);
  });

  it('refuses alike: no key, an unknown key, a bad option, a prompt over the context, a model of the wrong kind', async () => {
    for (const header of ['', 'lmk-not-a-key', `${key.split('/')[0]}/{"is_cache": 7}`]) {
      const x = await failure((async () => local.listModels({}, await both(header).l()))());
      expect(x).not.toBe('no failure');
      expect(await failure(remote.listModels({}, both(header).r()))).toEqual(x);
    }
    const c = both(key);
    const [lt, rt] = [await local.model({ id: 'tiny-chat' }, await c.l()), await remote.model({ id: 'tiny-chat' }, c.r())];
    const long = [{ role: 'user' as const, text: 'word '.repeat(200) }];
    const tooLong = await failure(local.chat({ model: lt, route: 't', messages: long, stream: true }, await c.l()));
    expect(tooLong[0]).toBe('bad_request');
    expect(await failure(remote.chat({ model: rt, route: 't', messages: long, stream: true }, c.r()))).toEqual(tooLong);
    const [lc, rc] = [await local.model({ id: 'local-chat' }, await c.l()), await remote.model({ id: 'local-chat' }, c.r())];
    const wrongKind = await failure(local.embed({ model: lc, route: 't', inputs: ['x'] }, await c.l()));
    expect(await failure(remote.embed({ model: rc, route: 't', inputs: ['x'] }, c.r()))).toEqual(wrongKind);
  });
});
