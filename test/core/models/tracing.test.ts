import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { openModelsCore, type ModelsCore } from '../../../core/models';
import { sqliteModelsStores } from '../../../core/models/sqlite';
import type { CatalogModel } from '../../../core/models/catalog/catalog';
import { callStatus } from '../../../edge/http/call-status';
import { startFakeBedrock, type FakeBedrock } from '../../shared/fakes/bedrock-upstream';
import { recordSpans } from '../../shared/telemetry';

const ACCESS_KEY = 'AKIAFAKEACCESS01';
const SECRET = 'fakeSecretAccessKey/0123456789abcdefXYZ';
const ROUTE = 'bedrock.converse-stream';

/** The model gateway's spans: one per call, `model <route> <model id>`, until its stream ends; the Bedrock SDK's call its child. */
describe("a model call's spans", () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let dir: string;
  let fake: FakeBedrock;
  let core: ModelsCore;
  let nova: CatalogModel;
  let apiKey: string;
  let unrecord: () => void;

  beforeAll(async () => {
    unrecord = recordSpans(provider);
    fake = await startFakeBedrock();
    dir = mkdtempSync(join(tmpdir(), 'model-spans-'));
    const catalogFile = join(dir, 'catalog.json');
    writeFileSync(
      catalogFile,
      JSON.stringify({
        models: [
          {
            id: 'nova',
            group: 'C',
            kind: 'chat',
            contextLength: 8192,
            maxOutputTokens: 256,
            upstream: {
              provider: 'bedrock',
              model: 'amazon.nova-pro-v1:0',
              baseUrl: fake.url,
              region: 'eu-west-1',
              credentialEnv: 'BEDROCK_TEST_CREDENTIAL',
            },
          },
        ],
      }),
    );
    core = openModelsCore({
      stores: sqliteModelsStores(':memory:'),
      catalogFile,
      env: { BEDROCK_TEST_CREDENTIAL: `${ACCESS_KEY}:${SECRET}` },
      upstream: { retries: 0 },
      statusOf: callStatus,
    });
    nova = core.catalog.find((m) => m.id === 'nova')!;
    apiKey = (await core.keys.create({ name: 'spans', tenant: 'tenant-a' })).apiKey;
  });
  afterAll(async () => {
    await core.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
    await provider.shutdown();
    unrecord();
  });
  beforeEach(() => exporter.reset());

  const named = (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name);

  it("lasts until the answer's stream ends, with the Bedrock call as its child client span", async () => {
    const caller = await core.keyCaller(`${apiKey}/{"is_cache":0}`);
    const call = await core.service.chat(
      { model: nova, route: ROUTE, messages: [{ role: 'user', text: 'Why do seas rise?' }] },
      { caller },
    );
    const [bedrock] = named('bedrock ConverseStream');
    expect(bedrock).toBeDefined();
    expect(bedrock.kind).toBe(2); // CLIENT
    expect(bedrock.attributes).toMatchObject({
      'rpc.service': 'BedrockRuntime',
      'rpc.method': 'ConverseStream',
      'cloud.region': 'eu-west-1',
    });
    expect(named(`model ${ROUTE} nova`)).toEqual([]);
    let answer = '';
    for await (const p of call.pieces) answer += p;
    expect(answer).toContain('sea');
    await call.done;
    const [span] = named(`model ${ROUTE} nova`);
    expect(span).toBeDefined();
    // The router's attempt span (routing/router.ts) sits between the call's span and the vendor's.
    const [attempt] = named('model attempt nova@default');
    expect(attempt.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    expect(attempt.attributes['model.attempt.outcome']).toBe('ok');
    expect(bedrock.parentSpanContext?.spanId).toBe(attempt.spanContext().spanId);
    expect(span.attributes).toMatchObject({
      'gen_ai.request.model': 'nova',
      'gen_ai.system': 'bedrock',
      'model.route': ROUTE,
      'http.response.status_code': 200,
      'model.cache': 'BYPASS',
    });
    expect(span.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    // The credential never reaches a span.
    expect(JSON.stringify(exporter.getFinishedSpans().map((s) => [s.attributes, s.events]))).not.toContain(SECRET);
  });

  it('marks a refused call failed, its attempt span, and its Bedrock span under it', async () => {
    fake.script({ status: 403, message: 'denied' });
    const caller = await core.keyCaller(`${apiKey}/{"is_cache":0}`);
    await expect(
      core.service.chat({ model: nova, route: ROUTE, messages: [{ role: 'user', text: 'Why do seas rise?' }] }, { caller }),
    ).rejects.toMatchObject({ code: 'upstream_misconfigured' });
    const [span] = named(`model ${ROUTE} nova`);
    const [bedrock] = named('bedrock ConverseStream');
    expect(span.status.code).toBe(2);
    expect(bedrock.status.code).toBe(2);
    expect(span.attributes['http.response.status_code']).toBe(502);
    const [attempt] = named('model attempt nova@default');
    expect(attempt.status.code).toBe(2);
    expect(attempt.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    expect(bedrock.parentSpanContext?.spanId).toBe(attempt.spanContext().spanId);
  });
});
