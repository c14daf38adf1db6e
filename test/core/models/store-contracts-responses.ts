import { randomUUID } from 'node:crypto';
import type { ResponseStore, StoredResponse } from '../../../core/models/ports';
import type { Opened } from '../../shared/two-handles';

const DAY = 86_400_000;

/** A response of `tenant` made at `now`, kept for a day, with a message and a function call as output. */
function response(tenant: string, now: number, ttlMs = DAY): StoredResponse {
  const id = `resp_${randomUUID()}`;
  const output = [
    {
      id: `msg_${randomUUID()}`,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Hello ✓', annotations: [] }],
    },
    {
      id: `fc_${randomUUID()}`,
      type: 'function_call',
      status: 'completed',
      call_id: 'call_1',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    },
  ];
  return {
    id,
    tenant,
    createdAt: now,
    expiresAt: now + ttlMs,
    response: { id, object: 'response', created_at: Math.floor(now / 1000), status: 'completed', output, metadata: { a: 'b' } },
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] }],
  };
}

/** The contract of every ResponseStore adapter (core/models/ports.ts): two handles on one store, and the time the cases run at. */
export function responseStoreContract(name: string, open: () => Promise<Opened<ResponseStore>>) {
  describe(`ResponseStore contract: ${name}`, () => {
    let s: Opened<ResponseStore>;
    let tenant: string;
    beforeEach(async () => {
      s = await open();
      tenant = `t-${randomUUID()}`;
    });
    afterEach(() => s.close());

    it('answers a kept response to its tenant from any handle, and its output items by id', async () => {
      const r = response(tenant, s.now());
      await s.one.put(r);
      expect(await s.two.get(tenant, r.id, s.now())).toEqual(r);
      const [msg, call] = r.response.output;
      const found = await s.two.items(tenant, [call.id, 'msg_unknown', msg.id], s.now());
      expect(found).toEqual(
        new Map([
          [msg.id, msg],
          [call.id, call],
        ]),
      );
      expect(await s.one.items(tenant, [], s.now())).toEqual(new Map());
      expect(await s.one.get(tenant, 'resp_unknown', s.now())).toBeUndefined();
    });

    it('never answers another tenant: not the response, not its items, and it cannot delete it', async () => {
      const r = response(tenant, s.now());
      await s.one.put(r);
      const other = `t-${randomUUID()}`;
      expect(await s.two.get(other, r.id, s.now())).toBeUndefined();
      expect(
        await s.two.items(
          other,
          r.response.output.map((i) => i.id),
          s.now(),
        ),
      ).toEqual(new Map());
      expect(await s.two.delete(other, r.id, s.now())).toBe(false);
      expect(await s.one.get(tenant, r.id, s.now())).toEqual(r);
    });

    it('deletes a response with its items, once', async () => {
      const r = response(tenant, s.now());
      await s.one.put(r);
      expect(await s.two.delete(tenant, r.id, s.now())).toBe(true);
      expect(await s.one.get(tenant, r.id, s.now())).toBeUndefined();
      expect(await s.one.items(tenant, [r.response.output[0].id], s.now())).toEqual(new Map());
      expect(await s.one.delete(tenant, r.id, s.now())).toBe(false);
    });

    it('answers nothing of an expired response, and prunes the expired ones only', async () => {
      const short = response(tenant, s.now(), 1000);
      const long = response(tenant, s.now(), DAY);
      await Promise.all([s.one.put(short), s.two.put(long)]);
      await s.advance(999);
      expect(await s.two.get(tenant, short.id, s.now())).toEqual(short);
      await s.advance(1);
      expect(await s.two.get(tenant, short.id, s.now())).toBeUndefined();
      expect(await s.two.items(tenant, [short.response.output[0].id], s.now())).toEqual(new Map());
      expect(await s.one.delete(tenant, short.id, s.now())).toBe(false);
      expect(await s.one.prune(s.now())).toBeGreaterThanOrEqual(1);
      // Pruned: not there even for a clock set back.
      expect(await s.one.get(tenant, short.id, s.now() - 1000)).toBeUndefined();
      expect(await s.two.get(tenant, long.id, s.now())).toEqual(long);
      expect((await s.two.items(tenant, [long.response.output[1].id], s.now())).size).toBe(1);
    });
  });
}
