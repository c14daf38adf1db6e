import { InvalidScope } from './errors';

/** spec/DECISIONS: `scopes` is space- or comma-separated. */
export const parseScopes = (raw: string | undefined | null): string[] => [...new Set((raw ?? '').split(/[\s,]+/).filter(Boolean))];

/** What was asked for when every one is in `allowed` (else the error `refuse` makes), or all of `allowed` when nothing was asked. */
export function narrow(allowed: readonly string[], asked: readonly string[], refuse: (refused: string[]) => Error): string[] {
  if (asked.length === 0) return [...allowed];
  const refused = asked.filter((s) => !allowed.includes(s));
  if (refused.length) throw refuse(refused);
  return [...asked];
}

/**
 * The scopes a token gets: what was asked for when every one is allowed (else invalid_scope),
 * or everything `allowed` when nothing was asked for.
 */
export const grantScopes = (allowed: string[], requested: string | undefined): string[] =>
  narrow(allowed, parseScopes(requested), (refused) => new InvalidScope(refused));
