import { keysetOf, keysetPage } from '../shared/admin/paging';
import { BadRequest } from '../shared/errors';
import type { ObjectRecord, ObjectStore } from './ports';
import type { ObjectPassagePage, ObjectPassagesRequest } from './types';

/**
 * One object's passages in order, a page at a time (a document's reader): keyset paging by chunk
 * index in the store (never the whole list in memory), `limit` 1..200 (default 50) and the opaque
 * cursors of every other list (core/shared/admin/paging.ts), each naming its object: another
 * object's cursor is refused, not read as a position in this one.
 */
const POSITION = { chunk_index: 'number' } as const;

const notOurs = () => new BadRequest('cursor: not one this list gave');

/** The page asked for, checked before the object is looked up (a bad ask is the caller's mistake whoever owns the object). */
export function passagesAsk(req: ObjectPassagesRequest) {
  const keyset = keysetOf({ limit: req.limit, cursor: req.after }, POSITION);
  const after = keyset.after;
  if (after && !(Number.isInteger(after[0]) && (after[0] as number) >= 0)) throw notOurs();
  return keyset;
}

export async function objectPassages(
  store: ObjectStore,
  o: ObjectRecord,
  keyset: ReturnType<typeof passagesAsk>,
): Promise<ObjectPassagePage> {
  if (keyset.after && keyset.after[1] !== o.id) throw notOurs();
  const afterIndex = keyset.after ? (keyset.after[0] as number) : -1;
  const records = await store.chunksOf(o.seq, afterIndex, keyset.limit + 1);
  const page = keysetPage({ records, total: o.chunkCount }, keyset, (c) => [c.idx, o.id]);
  return {
    items: page.items.map((c) => ({ chunkId: c.id, chunkIndex: c.idx, text: c.text })),
    total: page.total,
    nextCursor: page.nextCursor,
  };
}
