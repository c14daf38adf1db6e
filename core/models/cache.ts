import { createHash } from 'node:crypto';
import type { Clock } from '../clock';
import type { ChatStream, ChatUsage, FinishReason } from './chat';

/**
 * The response cache (DECISIONS `is_cache`): identical chat requests of one tenant (same model,
 * messages and sampling settings) within the TTL are answered from memory, streams replayed piece
 * by piece. Tenants never share entries. In memory, least recently used out first, bounded in
 * entries and in bytes. (cache-redis.ts keeps them in Redis instead, behind the same interface.)
 */
export type CacheOutcome = 'HIT' | 'MISS' | 'BYPASS';

interface Entry {
  pieces: string[];
  finishReason: FinishReason;
  usage: ChatUsage;
  expires: number;
  bytes: number;
}

export interface CacheOptions {
  ttlMs: number;
  maxEntries: number;
  maxBytes: number;
  clock: Clock;
}

/** A stable key: the tenant and the request's fields, with object keys sorted. */
export function cacheKey(tenant: string, request: unknown): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
    return v;
  };
  return createHash('sha256').update(JSON.stringify([tenant, canonical(request)])).digest('hex');
}

/** Where answers are kept: in process (below) or shared by every worker (Redis). */
export interface ChatCache {
  /** The cached answer, or the upstream's (recorded on its way to the caller, kept when it ends normally). */
  through(key: string, upstream: () => Promise<ChatStream>): Promise<{ stream: ChatStream; outcome: CacheOutcome }>;
  close?(): Promise<void>;
}

export function chatCache(opts: CacheOptions): ChatCache & { readonly size: number } {
  const entries = new Map<string, Entry>();
  let bytes = 0;
  const drop = (key: string) => {
    const e = entries.get(key);
    if (!e) return;
    bytes -= e.bytes;
    entries.delete(key);
  };
  const replay = (e: Entry): ChatStream => ({
    pieces: (async function* pieces() {
      yield* e.pieces;
    })(),
    done: Promise.resolve({ finishReason: e.finishReason, usage: e.usage }),
  });

  return {
    through(key: string, upstream: () => Promise<ChatStream>): Promise<{ stream: ChatStream; outcome: CacheOutcome }> {
      const hit = entries.get(key);
      if (hit && hit.expires > opts.clock.now()) {
        entries.delete(key);
        entries.set(key, hit);
        return Promise.resolve({ stream: replay(hit), outcome: 'HIT' });
      }
      if (hit) drop(key);
      return upstream().then((s) => {
        const recorded: string[] = [];
        const keep = (d: { finishReason: FinishReason; usage: ChatUsage }) => {
          if (d.finishReason !== 'stop' && d.finishReason !== 'length') return;
          const size = recorded.reduce((n, p) => n + p.length * 2, 64);
          if (size > opts.maxBytes / 10) return;
          drop(key);
          entries.set(key, { pieces: recorded, ...d, expires: opts.clock.now() + opts.ttlMs, bytes: size });
          bytes += size;
          while (entries.size > opts.maxEntries || bytes > opts.maxBytes) drop(entries.keys().next().value!);
        };
        // Only an answer the caller read to its end (not one cut off by a disconnect) is kept.
        const pieces = (async function* record() {
          for await (const p of s.pieces) {
            recorded.push(p);
            yield p;
          }
          keep(await s.done);
        })();
        return { stream: { pieces, done: s.done }, outcome: 'MISS' as const };
      });
    },
    get size() {
      return entries.size;
    },
  };
}

