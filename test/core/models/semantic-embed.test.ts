import { semanticEmbedder, semanticModelProblem } from '../../../core/models/answers/semantic-embed';
import { isActive, type CatalogModel } from '../../../core/models/catalog/catalog';
import type { CatalogSnapshot } from '../../../core/models/catalog/effective';
import { KeyOptions } from '../../../core/models/keys/key-options';
import type { ModelProvider } from '../../../core/models/neutral';
import { inlineOffload } from '../../../core/models/offload/offload';
import type { KeyCaller } from '../../../core/models/service';
import type { CallOutcome, Meter, MeteredCall } from '../../../core/models/usage/metering';
import { hashingVectors } from '../../../core/shared/text/embedder';
import { testClock } from '../../shared/helpers';

const model = (id: string, kind: CatalogModel['kind'], status = 'Active') =>
  ({ id, kind, status, upstream: { provider: 'local' }, price: { inputPerMillion: 0, outputPerMillion: 0 } }) as unknown as CatalogModel;
const snapshot = (...models: CatalogModel[]): Pick<CatalogSnapshot, 'byId'> => ({
  byId: new Map(models.map((m) => [m.id, { model: m, active: isActive(m) } as never])),
});
const caller = { key: { id: 'key-1', tenant: 'acme', models: ['local-chat'] }, options: KeyOptions.parse({}) } as unknown as KeyCaller;

function setUp(catalog: Pick<CatalogSnapshot, 'byId'>, embed: ModelProvider['embed']) {
  const records: { m: MeteredCall; o: CallOutcome }[] = [];
  const meter = { record: (m: MeteredCall, o: CallOutcome) => records.push({ m, o }) } as unknown as Meter;
  const embedder = semanticEmbedder({
    catalog: { current: () => catalog },
    model: 'local-embed',
    providerOf: () => ({ embed }),
    meter,
    offload: inlineOffload(),
    clock: testClock(),
  });
  return { embedder, records };
}

describe('the semantic cache’s embeddings', () => {
  it('are made by the catalog’s embedding model and recorded under the caller’s key, route semantic-cache', async () => {
    const asked: string[][] = [];
    const { embedder, records } = setUp(snapshot(model('local-embed', 'embedding')), async ({ inputs }) => {
      asked.push(inputs);
      return { vectors: hashingVectors(inputs) };
    });
    const v = await embedder(caller, 'Why do glaciers retreat?');
    expect(v).toEqual(hashingVectors(['Why do glaciers retreat?'])[0]);
    expect(asked).toEqual([['Why do glaciers retreat?']]);
    expect(records).toHaveLength(1);
    // The key's model list (local-chat only) does not stop the gateway's own embedding.
    expect(records[0].m).toMatchObject({ caller, route: 'semantic-cache', model: { id: 'local-embed' } });
    expect(records[0].o).toMatchObject({ end: 'ok', cache: 'BYPASS', wordsSent: 4 });
    expect(records[0].o.tokensIn).toBeGreaterThan(0);
  });

  it('record a failed embedding as a failed call, and refuse a model that cannot embed', async () => {
    const down = setUp(snapshot(model('local-embed', 'embedding')), async () => Promise.reject(new Error('upstream down')));
    await expect(down.embedder(caller, 'q')).rejects.toThrow('upstream down');
    expect(down.records[0].o.end).toEqual({ failed: expect.any(Error) });

    const off = setUp(snapshot(model('local-embed', 'embedding', 'Deactivated')), async () => ({ vectors: [] }));
    await expect(off.embedder(caller, 'q')).rejects.toThrow('local-embed is not active (Deactivated)');
    expect(off.records).toEqual([]);
  });

  it('name what is wrong with a model for the setting', () => {
    const s = snapshot(model('local-embed', 'embedding'), model('local-chat', 'chat'), model('old', 'embedding', 'Retired'));
    expect(semanticModelProblem(s, 'local-embed')).toBeUndefined();
    expect(semanticModelProblem(s, 'local-chat')).toBe('local-chat is not an embedding model (it is chat)');
    expect(semanticModelProblem(s, 'old')).toBe('old is not active (Retired)');
    expect(semanticModelProblem(s, 'nope')).toBe('nope is not in the catalog');
  });
});
