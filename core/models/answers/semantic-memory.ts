import type { SemanticEntry, SemanticStore } from '../ports';

export interface MemorySemanticOptions {
  /** Entries kept per tenant and shape (the oldest go first). Default 64. */
  maxPerShape?: number;
  /** Entries kept in all, every tenant's (the least recently used lists go first). Default 10,000. */
  maxEntries?: number;
}

/**
 * The semantic store in this process's memory (no REDIS_URL): each worker learns its own prompts,
 * which only costs hits, never correctness (the answers they point at are in the shared AnswerStore).
 * Bounded twice: per (tenant, shape) list, and in all, by dropping the least recently used lists;
 * an entry past its TTL is never given and its list goes once it holds only such entries.
 */
export function memorySemanticStore(opts: MemorySemanticOptions = {}): SemanticStore & { size(): number } {
  const perShape = opts.maxPerShape ?? 64;
  const max = opts.maxEntries ?? 10_000;
  // Insertion order is use order: a list read or written is moved to the end.
  const lists = new Map<string, { entries: SemanticEntry[]; expiresAt: number }>();
  let total = 0;
  // The tenant is part of the list's name: no list holds two tenants' entries.
  const name = (tenant: string, shape: string) => JSON.stringify([tenant, shape]);
  const drop = (k: string) => {
    total -= lists.get(k)?.entries.length ?? 0;
    lists.delete(k);
  };
  const touch = (k: string) => {
    const l = lists.get(k);
    if (l) {
      lists.delete(k);
      lists.set(k, l);
    }
    return l;
  };

  return {
    async entries(tenant, shape, now, ttlMs) {
      const k = name(tenant, shape);
      const l = touch(k);
      if (!l) return [];
      if (l.expiresAt <= now) {
        drop(k);
        return [];
      }
      return l.entries.filter((e) => e.at > now - ttlMs);
    },
    async add(tenant, shape, entry, ttlMs) {
      const k = name(tenant, shape);
      const l = touch(k) ?? { entries: [], expiresAt: 0 };
      if (!lists.has(k)) lists.set(k, l);
      l.entries.unshift(entry);
      total++;
      if (l.entries.length > perShape) total -= l.entries.splice(perShape).length;
      l.expiresAt = entry.at + ttlMs;
      for (const oldest of lists.keys()) {
        if (total <= max) break;
        drop(oldest);
      }
    },
    size: () => total,
  };
}
