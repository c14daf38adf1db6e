import type { CatalogModel } from '../../../core/models/catalog/catalog';
import type { ChatStream, ModelProvider } from '../../../core/models/neutral';
import { KeyOptions } from '../../../core/models/keys/key-options';
import type { KeyLimits } from '../../../core/models/keys/limits';
import type { CallOutcome, Meter, MeteredCall } from '../../../core/models/usage/metering';
import { meteredPipeline, type Method } from '../../../core/models/pipeline';
import type { KeyCaller } from '../../../core/models/service';
import { BadRequest, RateLimited } from '../../../core/shared/errors';

const model = {
  id: 'm',
  group: 'A',
  kind: 'embedding',
  upstream: { provider: 'local' },
  contextLength: 100,
  inputKinds: ['text'],
  price: { inputPerMillion: 0, outputPerMillion: 0 },
  status: 'active',
} as unknown as CatalogModel;
const caller = { key: { id: 'k', tenant: 't', models: null }, options: KeyOptions.parse({}) } as unknown as KeyCaller;

/** A pipeline whose meter keeps what it records, and whose limits admit unless told not to. */
function setUp(opts: { refuseAdmission?: boolean; provider?: ModelProvider } = {}) {
  const records: { route: string; outcome: CallOutcome }[] = [];
  const admitted: string[] = [];
  let now = 1000;
  const meter = {
    record: (m: MeteredCall, outcome: CallOutcome) => records.push({ route: m.route, outcome }),
    stream: (_m: MeteredCall, s: ChatStream) => s,
  } as unknown as Meter;
  const limits = {
    admit: async (key: { id: string }) => {
      if (opts.refuseAdmission) throw new RateLimited('slow down', 1);
      admitted.push(key.id);
    },
    spend: () => undefined,
  } as unknown as KeyLimits;
  const run = meteredPipeline({
    limits,
    meter,
    clock: { now: () => (now += 5) },
    providerOf: () => opts.provider ?? { embed: async () => ({ vectors: [] }) },
  });
  return { run, records, admitted };
}

const embedding: Method<{ texts: string[] }, number, 'embed'> = {
  kind: 'embedding',
  provider: 'embed',
  run: async (f, { upstream }) => {
    await upstream({ model: 'm', inputs: f.texts });
    return { value: f.texts.length, usage: { tokensIn: f.texts.length, guard: 'off' } };
  },
};

describe('the metered pipeline', () => {
  it('records an answered call as ok, with the figures its step gave', async () => {
    const { run, records, admitted } = setUp();
    await expect(run(embedding, { model, route: 'r', texts: ['a', 'b'] }, { caller })).resolves.toBe(2);
    expect(admitted).toEqual(['k']);
    expect(records).toEqual([{ route: 'r', outcome: expect.objectContaining({ end: 'ok', tokensIn: 2, guard: 'off' }) }]);
  });

  it('reads a given input in the call, and records a refused reading once, as failed, before admission', async () => {
    const { run, records, admitted } = setUp();
    const refusal = new BadRequest('malformed');
    const read = () => {
      throw refusal;
    };
    await expect(run(embedding, { model, route: 'r', read }, { caller })).rejects.toBe(refusal);
    expect(admitted).toEqual([]);
    expect(records).toEqual([{ route: 'r', outcome: { end: { failed: refusal }, startedAt: 1005, guard: 'n/a' } }]);
    await expect(run(embedding, { model, route: 'r', read: async () => ({ texts: ['x'] }) }, { caller })).resolves.toBe(1);
  });

  it('records a call its checks refuse: the limits, the kind, a provider without the method', async () => {
    const limited = setUp({ refuseAdmission: true });
    await expect(limited.run(embedding, { model, route: 'r', texts: [] }, { caller })).rejects.toBeInstanceOf(RateLimited);
    expect(limited.records[0].outcome.end).toEqual({ failed: expect.any(RateLimited) });

    const { run, records } = setUp({ provider: {} });
    await expect(run({ ...embedding, kind: 'chat' }, { model, route: 'r', texts: [] }, { caller })).rejects.toMatchObject({
      code: 'unsupported_model',
    });
    await expect(run(embedding, { model, route: 'r', texts: [] }, { caller })).rejects.toMatchObject({ code: 'provider_unavailable' });
    expect(records.map((r) => r.outcome.guard)).toEqual(['n/a', 'n/a']);
  });

  it('records a call whose caller left as left, not failed', async () => {
    const { run, records } = setUp();
    const gone = new AbortController();
    gone.abort();
    const leaving: Method<{ texts: string[] }, number> = {
      run: async () => {
        throw new Error('aborted');
      },
    };
    await expect(run(leaving, { model, route: 'r', texts: [] }, { caller, signal: gone.signal })).rejects.toThrow('aborted');
    expect(records[0].outcome.end).toBe('left');
  });
});
