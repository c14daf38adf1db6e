import { userInfo } from 'node:os';
import { cliAdmin, type Admin } from '../../core/shared/admin/access';
import { MAX_PAGE, type Page, type PageAsk } from '../../core/shared/admin/paging';
import type { Ctx } from '../../core/shared/context';
import { UsageError } from './cli';

/**
 * What the administrative commands share, on a data directory and on a remote platform alike
 * (`--url`): who the local command acts as, and how a list is printed whole.
 */

/** The operating system's user: the local command's actor in audit events (kind `cli`). */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    // A container's user without a passwd entry has no name to give.
    return process.env.USER || process.env.LOGNAME || `uid ${process.getuid?.() ?? '?'}`;
  }
}

/** The ctx of a command on a data directory: whoever can read the data directory administers everything. */
export const cliCtx = (): Ctx<Admin> => ({ caller: cliAdmin(osUser()) });

/** A page as a core answers it (`nextCursor`) or as the admin API's views and wire say it (`next_cursor`). */
export type AnyPage<T> = Page<T> | { items: T[]; next_cursor: string | null };

/** The list flags every list command takes: `--sort field|-field`, `--limit N` (at most N items; default every one). */
export const LIST_FLAGS = ['sort', 'limit'] as const;

/**
 * Every item of a list, page after page (as the admin API pages it), or the first `--limit` ones:
 * what a list command prints, the same array whether the pages come from the core or over HTTP.
 */
export async function everyItem<T>(list: (ask: PageAsk) => Promise<AnyPage<T>>, f: Record<string, string | undefined>): Promise<T[]> {
  const most = f.limit === undefined ? Infinity : whole(f.limit, 'limit');
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await list({ limit: Math.min(MAX_PAGE, most - out.length), cursor, sort: f.sort });
    out.push(...page.items);
    cursor = ('next_cursor' in page ? page.next_cursor : page.nextCursor) ?? undefined;
  } while (cursor && out.length < most);
  return out;
}

/** `--name N`: a positive whole number. */
export function whole(v: string, name: string): number {
  if (!/^[1-9]\d{0,12}$/.test(v)) throw new UsageError(`--${name} takes a positive whole number`);
  return Number(v);
}

/** `--name true|false` (a filter); undefined when not given. */
export function yesNo(v: string | undefined, name: string): boolean | undefined {
  if (v === undefined) return undefined;
  if (v !== 'true' && v !== 'false') throw new UsageError(`--${name} takes true or false`);
  return v === 'true';
}

/** `--version N`: the version an update was read with (412 when the object changed since); any when absent. */
export const versionFlag = (v: string | undefined): number | undefined => (v === undefined ? undefined : whole(v, 'version'));
