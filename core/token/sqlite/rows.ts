import { fromJson } from '../../shared/sqlite';
import { tokenRows } from '../rows';

/** Rows of token.db as records (booleans are 0/1, instants epoch milliseconds, lists JSON text). */
export const { realm, client, user, session, key, browserSession, code } = tokenRows({
  bool: (v) => v === 1,
  time: (v) => v as number,
  json: <T>(v: unknown) => fromJson<T>(v as string),
});
