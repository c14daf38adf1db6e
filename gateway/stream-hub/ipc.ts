import { Unavailable } from '../../core/shared/errors';
import { streamDirectory } from './directory';
import type { HubMessage, HubReply, Opened, ReserveBounds, StreamHub } from './hub';

/**
 * The workers of one host (`WORKERS` > 1, no Redis) share the single connection mode's streams
 * through the cluster's primary, which keeps the directory (streamDirectory) and relays each
 * request to the worker holding the stream. Messages ride node's IPC channel under `sseHub`.
 */
type Call =
  | { call: 'reserve'; token: string; owner: string; bounds: ReserveBounds }
  | { call: 'open'; token: string; owner: string }
  | { call: 'send'; owner: string; msg: HubMessage; maxQueued: number }
  | { call: 'closed'; token: string };

export type HubIpcMessage = {
  sseHub:
    | (Call & { rid: number })
    | { rid: number; result: unknown }
    | { did: number; deliver: HubMessage }
    | { did: number; delivered: HubReply };
};

/** One end of an IPC channel (a cluster worker's `process`, or the primary's `Worker`). */
export interface HubChannel {
  send(msg: HubIpcMessage): unknown;
  on(event: 'message', listener: (msg: unknown) => void): unknown;
}

/** How long a worker waits for the primary, and the primary for a stream's holder. */
const ANSWER_WITHIN_MS = 10_000;

const hubMessage = (raw: unknown) => (raw as Partial<HubIpcMessage> | null)?.sseHub;

/** A send over a channel that may have closed (the process stopping): nothing to do then. */
const post = (channel: HubChannel, msg: HubIpcMessage) => {
  try {
    channel.send(msg);
  } catch {
    /* the other end is gone */
  }
};

/** A worker's hub: every call answered by the primary. */
export function ipcStreamHub(channel: HubChannel): StreamHub {
  let seq = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  let handler: ((msg: HubMessage) => Promise<HubReply>) | undefined;
  channel.on('message', (raw) => {
    const m = hubMessage(raw);
    if (!m) return;
    if ('deliver' in m) {
      const answer = handler
        ? handler(m.deliver).catch((): HubReply => ({ refused: 'not_found' }))
        : Promise.resolve<HubReply>({ refused: 'not_found' });
      void answer.then((delivered) => post(channel, { sseHub: { did: m.did, delivered } }));
    } else if ('result' in m) {
      const p = pending.get(m.rid);
      pending.delete(m.rid);
      if (p) {
        clearTimeout(p.timer);
        p.resolve(m.result);
      }
    }
  });
  const call = <T>(body: Call) =>
    new Promise<T>((resolve, reject) => {
      const rid = ++seq;
      const timer = setTimeout(() => {
        pending.delete(rid);
        reject(new Unavailable("The event streams' directory (the primary process) did not answer", 1));
      }, ANSWER_WITHIN_MS);
      timer.unref();
      pending.set(rid, { resolve: resolve as (v: unknown) => void, reject, timer });
      post(channel, { sseHub: { ...body, rid } });
    });
  return {
    reserve: (token, owner, bounds) => call<boolean>({ call: 'reserve', token, owner, bounds }),
    open: (token, owner) => call<Opened>({ call: 'open', token, owner }),
    send: (owner, msg, maxQueued) => call<HubReply>({ call: 'send', owner, msg, maxQueued }),
    closed: (token) => call<void>({ call: 'closed', token }).catch(() => undefined),
    serve(h) {
      handler = h;
    },
    async close() {
      for (const p of pending.values()) clearTimeout(p.timer);
      pending.clear();
    },
  };
}

/** The primary's side: one directory for every worker it serves. */
export function streamHubBroker() {
  const directory = streamDirectory();
  const workers = new Map<string, HubChannel>();
  let seq = 0;
  const deliveries = new Map<number, { resolve: (r: HubReply) => void; holder: string; timer: NodeJS.Timeout }>();

  const deliver = (holder: string, msg: HubMessage) =>
    new Promise<HubReply>((resolve) => {
      const channel = workers.get(holder);
      if (!channel) return resolve({ refused: 'not_found' });
      const did = ++seq;
      const timer = setTimeout(() => {
        // A holder that does not answer has lost its streams for all its clients can tell.
        deliveries.delete(did);
        directory.drop(msg.token);
        resolve({ refused: 'not_found' });
      }, ANSWER_WITHIN_MS);
      timer.unref();
      deliveries.set(did, { resolve, holder, timer });
      post(channel, { sseHub: { did, deliver: msg } });
    });

  const answer = async (holder: string, c: Call): Promise<unknown> => {
    switch (c.call) {
      case 'reserve':
        return directory.reserve(c.token, c.owner, c.bounds);
      case 'open':
        return directory.open(c.token, c.owner, holder);
      case 'closed':
        return directory.drop(c.token);
      case 'send': {
        const route = directory.route(c.owner, c.msg, c.maxQueued);
        return 'deliver' in route ? deliver(route.deliver, c.msg) : route;
      }
    }
  };

  return {
    /** Serves one worker (`id` unique among the workers ever started); its streams go when it exits. */
    serve(id: string, worker: HubChannel & { once(event: 'exit', listener: () => void): unknown }) {
      workers.set(id, worker);
      worker.on('message', (raw) => {
        const m = hubMessage(raw);
        if (!m) return;
        if ('delivered' in m) {
          const d = deliveries.get(m.did);
          deliveries.delete(m.did);
          if (d) {
            clearTimeout(d.timer);
            d.resolve(m.delivered);
          }
        } else if ('call' in m) {
          // null, not undefined: JSON over IPC would drop the field.
          void answer(id, m).then((result) => post(worker, { sseHub: { rid: m.rid, result: result ?? null } }));
        }
      });
      worker.once('exit', () => {
        workers.delete(id);
        directory.dropHolder(id);
        for (const [did, d] of deliveries) {
          if (d.holder !== id) continue;
          clearTimeout(d.timer);
          deliveries.delete(did);
          d.resolve({ refused: 'not_found' });
        }
      });
    },
    /** Streams reserved or open (for tests). */
    size: () => directory.size(),
  };
}
