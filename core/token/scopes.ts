import { InvalidScope } from './errors';

/** spec/DECISIONS: `scopes` is space- or comma-separated. */
export const parseScopes = (raw: string | undefined | null): string[] =>
  [...new Set((raw ?? '').split(/[\s,]+/).filter(Boolean))];

/**
 * The scopes a token gets: what was asked for when every one is allowed (else invalid_scope),
 * or everything `allowed` when nothing was asked for.
 */
export function grantScopes(allowed: string[], requested: string | undefined): string[] {
  const asked = parseScopes(requested);
  if (asked.length === 0) return [...allowed];
  const refused = asked.filter((s) => !allowed.includes(s));
  if (refused.length) throw new InvalidScope(refused);
  return asked;
}
