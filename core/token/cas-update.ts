import { Conflict, NotFound, PreconditionFailed } from '../shared/errors';
import type { Updated } from './ports';

/** Reads of a record raced by other writers before a write without If-Match gives up (409). */
const UPDATE_TRIES = 5;

/**
 * An update as the admin API makes it: read the record, let `guard` refuse it (a realm
 * administrator's limits), then compare-and-set on the version read, so what `guard` saw is what
 * is written over. With `ifVersion` (If-Match) another change first is 412; without it the update
 * is read again and retried (last writer wins, never a write over a record nobody checked).
 */
export async function casUpdate<R extends { version: number }>(opts: {
  what: string;
  read: () => Promise<R | undefined>;
  write: (current: R, version: number) => Promise<Updated<R>>;
  ifVersion?: number;
  guard?: (current: R) => void;
  taken?: string;
}): Promise<{ before: R; after: R }> {
  const stale = (version: number) =>
    new PreconditionFailed(`${opts.what} has changed since it was read (now version ${version}): read it again`);
  for (let i = 0; i < UPDATE_TRIES; i++) {
    const current = await opts.read();
    if (!current) throw new NotFound(`no ${opts.what}`);
    if (opts.ifVersion !== undefined && current.version !== opts.ifVersion) throw stale(current.version);
    opts.guard?.(current);
    const u = await opts.write(current, current.version);
    if (u.status === 'ok') return { before: current, after: u.record };
    if (u.status === 'missing') throw new NotFound(`no ${opts.what}`);
    if (u.status === 'taken') throw new Conflict(opts.taken ?? `${opts.what}: a unique name is already taken`);
    if (opts.ifVersion !== undefined) throw stale(u.version);
  }
  throw new Conflict(`${opts.what} is being changed by others at this moment: try again`);
}

export const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** The fields of `o` that are set (a patch keeps the others as they are). */
export function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
