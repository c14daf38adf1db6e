/** A parameter read once: its value, or why it cannot be used (given twice, too long, not text). */
export type Param = { value: string | undefined } | { error: string };

/** RFC 6749 §3.1: parameters must not be included more than once; each has a bound on its length. */
export function param(params: Record<string, unknown>, name: string, max: number): Param {
  const v = Object.hasOwn(params, name) ? params[name] : undefined;
  if (v === undefined || v === '') return { value: undefined };
  if (typeof v !== 'string') return { error: `${name} was given more than once` };
  if (v.length > max) return { error: `${name} is longer than ${max} characters` };
  return { value: v };
}

/** Reads every parameter of `limits`: their values, or the first problem found. */
export function readParams<K extends string>(
  params: Record<string, unknown>,
  limits: Record<K, number>,
): { values: Partial<Record<K, string>> } | { error: string } {
  const values: Partial<Record<K, string>> = {};
  for (const [name, max] of Object.entries(limits) as [K, number][]) {
    const p = param(params, name, max);
    if ('error' in p) return { error: p.error };
    if (p.value !== undefined) values[name] = p.value;
  }
  return { values };
}
