import type { HubMessage, HubOperation, HubReply, Opened, ReserveBounds } from './hub';

interface Entry {
  owner: string;
  /** The process holding the open stream; absent while it is only reserved. */
  holder?: string;
  /** Operations sent before the stream opened, by id. */
  queued: Map<string, HubOperation>;
  expiry?: NodeJS.Timeout;
}

/** Where a request goes: to the holder named, or answered here. */
export type Route = { deliver: string } | HubReply;

/**
 * The streams of the single connection mode in one memory: this process's own (local.ts), or the
 * cluster primary's for its workers (ipc.ts). Holders are named by the caller (a worker's id).
 */
export function streamDirectory() {
  const entries = new Map<string, Entry>();
  const drop = (token: string) => {
    const e = entries.get(token);
    if (e?.expiry) clearTimeout(e.expiry);
    entries.delete(token);
  };
  return {
    reserve(token: string, owner: string, bounds: ReserveBounds): boolean {
      let held = 0;
      for (const e of entries.values()) if (e.owner === owner) held++;
      if (held >= bounds.maxStreams) return false;
      const expiry = setTimeout(() => entries.get(token)?.holder === undefined && drop(token), bounds.ttlMs);
      expiry.unref();
      entries.set(token, { owner, queued: new Map(), expiry });
      return true;
    },
    open(token: string, owner: string, holder: string): Opened {
      const e = entries.get(token);
      if (e?.owner !== owner) return { opened: false, why: 'not_found' };
      if (e.holder !== undefined) return { opened: false, why: 'already_open' };
      clearTimeout(e.expiry);
      e.holder = holder;
      const queued = [...e.queued.values()];
      e.queued.clear();
      return { opened: true, queued };
    },
    route(owner: string, msg: HubMessage, maxQueued: number): Route {
      const e = entries.get(msg.token);
      if (e?.owner !== owner) return { refused: 'not_found' };
      if (e.holder !== undefined) return { deliver: e.holder };
      if (msg.type === 'cancel') {
        e.queued.delete(msg.id);
        return { ok: true };
      }
      if (e.queued.has(msg.op.id)) return { refused: 'taken' };
      if (e.queued.size >= maxQueued) return { refused: 'too_many' };
      e.queued.set(msg.op.id, msg.op);
      return { ok: true };
    },
    drop,
    /** Forgets every stream `holder` held (its process is gone, and its streams with it). */
    dropHolder(holder: string) {
      for (const [token, e] of entries) if (e.holder === holder) drop(token);
    },
    /** Streams reserved or open. */
    size: () => entries.size,
    clear() {
      for (const token of [...entries.keys()]) drop(token);
    },
  };
}

export type StreamDirectory = ReturnType<typeof streamDirectory>;
