import { tokenRows } from '../rows';

export type { Row } from '../rows';

/** Rows of the token_ tables as records (TIMESTAMPTZ arrives as a Date, JSONB parsed, BOOLEAN as a boolean). */
export const { realm, client, user, session, key, browserSession, code } = tokenRows({
  bool: (v) => v as boolean,
  time: (v) => (v as Date).getTime(),
  json: <T>(v: unknown) => v as T,
});
