import { EventEmitter } from 'node:events';
import type { HubMessage, HubOperation, HubReply, StreamHub } from '../../gateway/stream-hub/hub';
import { ipcStreamHub, streamHubBroker, type HubChannel } from '../../gateway/stream-hub/ipc';
import { localStreamHub } from '../../gateway/stream-hub/local';

/**
 * The event streams' hub on its own: the same rules in one process (local) and for the workers of
 * a cluster through its primary (ipc), whose IPC channels are paired emitters here, passing
 * messages through JSON as node's channel does.
 */
const BOUNDS = { maxStreams: 2, ttlMs: 60_000 };
const op = (id: string): HubOperation => ({ id, kind: 'other', payload: { query: '{ __typename }' }, headers: {} });
const operation = (token: string, id: string): HubMessage => ({ type: 'operation', token, op: op(id) });

/** A worker's channel and the primary's end of it. */
function pair() {
  const toWorker = new EventEmitter();
  const toPrimary = new EventEmitter();
  const wire = (msg: unknown) => JSON.parse(JSON.stringify(msg)) as unknown;
  const workerEnd: HubChannel = { send: (m) => setImmediate(() => toPrimary.emit('message', wire(m))), on: (e, l) => toWorker.on(e, l) };
  const primaryEnd = Object.assign(new EventEmitter(), {
    send: (m: unknown) => setImmediate(() => toWorker.emit('message', wire(m))),
  });
  toPrimary.on('message', (m) => primaryEnd.emit('message', m));
  return { workerEnd, primaryEnd };
}

/** A hub whose handler records what reached it and answers ok. */
function holding(hub: StreamHub) {
  const reached: HubMessage[] = [];
  hub.serve(async (msg): Promise<HubReply> => {
    reached.push(msg);
    return { ok: true };
  });
  return reached;
}

describe('in one process', () => {
  it('queues operations until the stream opens, then delivers to its holder; refuses other owners, taken ids and too many', async () => {
    const hub = localStreamHub();
    const reached = holding(hub);
    expect(await hub.reserve('t1', 'alice', BOUNDS)).toBe(true);
    expect(await hub.send('alice', operation('t1', 'a'), 2)).toEqual({ ok: true });
    expect(await hub.send('alice', operation('t1', 'a'), 2)).toEqual({ refused: 'taken' });
    expect(await hub.send('alice', operation('t1', 'b'), 2)).toEqual({ ok: true });
    expect(await hub.send('alice', operation('t1', 'c'), 2)).toEqual({ refused: 'too_many' });
    expect(await hub.send('alice', { type: 'cancel', token: 't1', id: 'b' }, 2)).toEqual({ ok: true });
    expect(await hub.send('bob', operation('t1', 'x'), 2)).toEqual({ refused: 'not_found' });
    expect(await hub.open('t1', 'bob')).toEqual({ opened: false, why: 'not_found' });
    expect(await hub.open('t1', 'alice')).toEqual({ opened: true, queued: [op('a')] });
    expect(await hub.open('t1', 'alice')).toEqual({ opened: false, why: 'already_open' });
    expect(await hub.send('alice', operation('t1', 'd'), 2)).toEqual({ ok: true });
    expect(reached).toEqual([operation('t1', 'd')]);
    await hub.closed('t1');
    expect(await hub.send('alice', operation('t1', 'e'), 2)).toEqual({ refused: 'not_found' });
  });

  it('bounds the streams of one owner, and drops a reservation not opened in time', async () => {
    jest.useFakeTimers();
    try {
      const hub = localStreamHub();
      expect(await hub.reserve('t1', 'alice', { maxStreams: 2, ttlMs: 1000 })).toBe(true);
      expect(await hub.reserve('t2', 'alice', { maxStreams: 2, ttlMs: 1000 })).toBe(true);
      expect(await hub.reserve('t3', 'alice', { maxStreams: 2, ttlMs: 1000 })).toBe(false);
      expect(await hub.reserve('t4', 'bob', { maxStreams: 2, ttlMs: 1000 })).toBe(true);
      await hub.open('t2', 'alice');
      jest.advanceTimersByTime(1001);
      expect(await hub.open('t1', 'alice')).toEqual({ opened: false, why: 'not_found' });
      expect(await hub.send('alice', operation('t2', 'a'), 5)).toEqual({ refused: 'not_found' }); // no handler: nothing holds it here
      expect(await hub.reserve('t5', 'alice', { maxStreams: 2, ttlMs: 1000 })).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('the workers of a cluster, through the primary', () => {
  it('a stream reserved by one worker and opened by another gets the operations a third receives; a worker that exits loses its streams', async () => {
    const broker = streamHubBroker();
    const ends = [pair(), pair(), pair()];
    ends.forEach((e, i) => broker.serve(String(i + 1), e.primaryEnd));
    const [w1, w2, w3] = ends.map((e) => ipcStreamHub(e.workerEnd)) as [StreamHub, StreamHub, StreamHub];
    const reached = [w1, w2, w3].map(holding);
    expect(await w1.reserve('t1', 'alice', BOUNDS)).toBe(true);
    expect(await w3.send('alice', operation('t1', 'early'), 5)).toEqual({ ok: true });
    expect(await w2.open('t1', 'alice')).toEqual({ opened: true, queued: [op('early')] });
    expect(await w3.send('alice', operation('t1', 'late'), 5)).toEqual({ ok: true });
    expect(await w1.send('alice', { type: 'cancel', token: 't1', id: 'late' }, 5)).toEqual({ ok: true });
    expect(reached).toEqual([[], [operation('t1', 'late'), { type: 'cancel', token: 't1', id: 'late' }], []]);
    expect(await w3.send('bob', operation('t1', 'x'), 5)).toEqual({ refused: 'not_found' });
    expect(await w1.reserve('t2', 'alice', BOUNDS)).toBe(true);
    expect(await w3.reserve('t3', 'alice', BOUNDS)).toBe(false);
    expect(broker.size()).toBe(2);

    ends[1].primaryEnd.emit('exit');
    expect(await w3.send('alice', operation('t1', 'after'), 5)).toEqual({ refused: 'not_found' });
    expect(broker.size()).toBe(1);
    await w1.closed('t2');
    expect(broker.size()).toBe(0);
  });
});
