import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ChatDone, ChatRequest, ChatStream } from '../neutral';
import type { AnswerStore } from '../ports';

/**
 * The response cache (DECISIONS `is_cache`): identical chat requests of one tenant (same model,
 * messages, tools and sampling settings) within the TTL are answered from the store, streams replayed
 * piece by piece. Tenants never share entries (the tenant is part of the key). Only an answer read
 * to its end that finished with stop, length or tool calls is kept (its calls with it). The store (models.db, or Redis) is shared
 * by every process, and is an optimisation, never a dependency of a call: a failed read is a miss
 * and the answer is then not written back; a failed write is dropped; both go to `onError`.
 */
export type CacheOutcome = 'HIT' | 'MISS' | 'BYPASS';

/** What went wrong with the store (`connection`: reported by the Redis adapter). */
export type CacheOp = 'get' | 'set' | 'connection';

/**
 * Each field of a chat request as it is keyed: in one fixed order whatever order a door built the
 * request in, so the same call from any door is one entry (Record<>: a new field of ChatRequest is a
 * compile error here until it is keyed or said not to matter). What the caller wrote as JSON (a
 * tool's parameters, a response schema) is keyed as it came, key order included: key order is part
 * of a schema (OpenAI writes a structured answer's properties in the schema's order).
 */
const KEYED: Record<keyof ChatRequest, (r: ChatRequest) => unknown> = {
  model: (r) => r.model,
  messages: (r) =>
    r.messages.map((m) => [
      m.role,
      m.text,
      m.attachments?.map((a) => [a.kind, a.mimeType, a.name, a.data]),
      m.toolCalls?.map((c) => [c.id, c.name, c.arguments]),
      m.toolCallId,
      m.toolName,
    ]),
  maxTokens: (r) => r.maxTokens,
  temperature: (r) => r.temperature,
  topP: (r) => r.topP,
  stop: (r) => r.stop,
  tools: (r) => r.tools?.map((t) => [t.name, t.description, t.parameters, t.strict]),
  toolChoice: (r) => r.toolChoice && [r.toolChoice.type, 'name' in r.toolChoice ? r.toolChoice.name : undefined],
  responseFormat: (r) => {
    const f = r.responseFormat;
    return f && (f.type === 'json_schema' ? [f.type, f.name, f.schema, f.description, f.strict] : [f.type]);
  },
  // How the answer is read, and a count of the prompt the gateway made: the same answer either way.
  stream: () => undefined,
  promptTokens: () => undefined,
};
const FIELDS = Object.keys(KEYED) as (keyof ChatRequest)[];

/**
 * A chat request's key: its tenant, the catalog model and the request's fields (above), as JSON
 * text, hashed. One native JSON.stringify: sorting every object's keys first, as this once did,
 * cost more than parsing the body (about 30 ms of event loop for a 1 MB tool schema).
 */
export function cacheKey(tenant: string, catalog: string, request: ChatRequest): string {
  return createHash('sha256')
    .update(JSON.stringify([tenant, catalog, FIELDS.map((f) => KEYED[f](request) ?? null)]))
    .digest('hex');
}

/** Where answers are kept, as the gateway sees it. */
export interface ChatCache {
  /** The cached answer, or the upstream's (recorded on its way to the caller, kept when it ends normally). */
  through(key: string, upstream: () => Promise<ChatStream>): Promise<{ stream: ChatStream; outcome: CacheOutcome }>;
  /**
   * The answer under `key` replayed; undefined when there is none, `failed` when the store could not
   * be read (reported): the semantic cache (semantic-cache.ts) looks up before it decides what to call.
   */
  read(key: string): Promise<ChatStream | undefined | 'failed'>;
  /** `stream` recorded on its way to the caller and kept under `key` when it ends normally; `kept` is told once it was handed to the store. */
  record(key: string, stream: ChatStream, kept?: () => void): ChatStream;
  close?(): Promise<void>;
}

export interface AnswerCacheOptions {
  ttlMs: number;
  /** Answers whose stored JSON would be larger are not kept. */
  maxEntryBytes: number;
  onError?: (op: CacheOp, err: Error) => void;
}

const Stored = z.object({
  pieces: z.array(z.string()),
  finishReason: z.enum(['stop', 'length', 'tool_calls']),
  usage: z.object({ promptTokens: z.number(), completionTokens: z.number() }),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
});
type Stored = z.infer<typeof Stored>;

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

const replay = (e: Stored): ChatStream => ({
  pieces: (async function* pieces() {
    yield* e.pieces;
  })(),
  done: Promise.resolve({ finishReason: e.finishReason, usage: e.usage, ...(e.toolCalls ? { toolCalls: e.toolCalls } : {}) }),
});

export function answerCache(store: AnswerStore, opts: AnswerCacheOptions): ChatCache {
  const report = (op: CacheOp, e: unknown) => opts.onError?.(op, asError(e));

  const lookup = async (key: string): Promise<Stored | undefined | 'failed'> => {
    let raw: string | undefined;
    try {
      raw = await store.get(key);
    } catch (e) {
      report('get', e);
      return 'failed';
    }
    if (raw === undefined) return undefined;
    try {
      return Stored.parse(JSON.parse(raw));
    } catch {
      // Not ours (another version wrote it, or it was tampered with): answer from upstream and overwrite.
      report('get', new Error(`unreadable cache entry under ${key}`));
      return undefined;
    }
  };

  const record = (key: string, s: ChatStream, kept?: () => void): ChatStream => {
    const recorded: string[] = [];
    let bytes = 0;
    const keep = (d: ChatDone) => {
      if (bytes > opts.maxEntryBytes) return;
      if (d.finishReason !== 'stop' && d.finishReason !== 'length' && d.finishReason !== 'tool_calls') return;
      const json = JSON.stringify({
        pieces: recorded,
        finishReason: d.finishReason,
        usage: d.usage,
        ...(d.toolCalls ? { toolCalls: d.toolCalls } : {}),
      } satisfies Stored);
      if (Buffer.byteLength(json) > opts.maxEntryBytes) return;
      // Not awaited: the caller's stream ends as soon as the upstream's does (a SQLite store has
      // written it by the time this returns; a Redis one sends it on its way).
      try {
        store.set(key, json, opts.ttlMs).then(kept, (e: unknown) => report('set', e));
      } catch (e) {
        report('set', e);
      }
    };
    // Only an answer the caller read to its end (not one cut off by a disconnect) is kept.
    const pieces = (async function* record() {
      for await (const p of s.pieces) {
        if (bytes <= opts.maxEntryBytes) {
          bytes += Buffer.byteLength(p);
          // Past the bound it can no longer be kept: stop holding a long answer in memory.
          if (bytes > opts.maxEntryBytes) recorded.length = 0;
          else recorded.push(p);
        }
        yield p;
      }
      keep(await s.done);
    })();
    return { pieces, done: s.done };
  };

  return {
    async through(key, upstream) {
      const hit = await lookup(key);
      if (hit && hit !== 'failed') return { stream: replay(hit), outcome: 'HIT' };
      const s = await upstream();
      // A read that just failed means the store is down or stalled: this call leaves it alone.
      if (hit === 'failed') return { stream: s, outcome: 'MISS' };
      return { stream: record(key, s), outcome: 'MISS' };
    },
    async read(key) {
      const hit = await lookup(key);
      return hit && hit !== 'failed' ? replay(hit) : hit;
    },
    record,
  };
}
