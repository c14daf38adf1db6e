import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { SemanticEntry, SemanticStore } from '../ports';

/**
 * The semantic store in Redis (`REDIS_URL`), shared by every worker and replica: per tenant and
 * shape one list (newest first, trimmed to `maxPerShape` in the same MULTI that pushes), expiring a
 * TTL after its last entry. An entry is binary: the instant (float64), its answer key's length and
 * text, then the vector as Float32 (4 KiB for `local-embed`'s 1,024 dimensions), all little-endian.
 * The list's name hashes the tenant with the shape: no list holds two tenants' entries.
 */
export function redisSemanticStore(client: Redis, opts: { prefix?: string; maxPerShape?: number } = {}): SemanticStore {
  const prefix = opts.prefix ?? 'platform:models:semantic:';
  const perShape = opts.maxPerShape ?? 64;
  const name = (tenant: string, shape: string) =>
    prefix +
    createHash('sha256')
      .update(JSON.stringify([tenant, shape]))
      .digest('hex');
  return {
    async entries(tenant, shape, now, ttlMs) {
      const raw = await client.lrangeBuffer(name(tenant, shape), 0, perShape - 1);
      return raw.map(decode).filter((e): e is SemanticEntry => !!e && e.at > now - ttlMs);
    },
    async add(tenant, shape, entry, ttlMs) {
      const k = name(tenant, shape);
      const r = await client
        .multi()
        .lpush(k, encode(entry))
        .ltrim(k, 0, perShape - 1)
        .pexpire(k, ttlMs)
        .exec();
      const failed = r?.find(([err]) => err)?.[0];
      if (failed) throw failed;
    },
  };
}

export function encode(e: SemanticEntry): Buffer {
  const key = Buffer.from(e.key);
  const b = Buffer.alloc(10 + key.length + e.vector.length * 4);
  b.writeDoubleLE(e.at, 0);
  b.writeUInt16LE(key.length, 8);
  key.copy(b, 10);
  const off = 10 + key.length;
  for (let i = 0; i < e.vector.length; i++) b.writeFloatLE(e.vector[i], off + i * 4);
  return b;
}

/** An entry as written by `encode`; undefined for bytes that are not one (another version's, or damaged). */
export function decode(b: Buffer): SemanticEntry | undefined {
  if (b.length < 10) return undefined;
  const len = b.readUInt16LE(8);
  const off = 10 + len;
  if (off > b.length || (b.length - off) % 4 !== 0) return undefined;
  const vector = new Float32Array((b.length - off) / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = b.readFloatLE(off + i * 4);
  return { at: b.readDoubleLE(0), key: b.toString('utf8', 10, off), vector };
}
