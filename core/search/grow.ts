type TypedArray = Int32Array | Uint16Array | Float32Array | Float64Array;

/** A typed array twice as long holding the same values: how the in-memory indexes grow their postings. */
export function doubled<T extends TypedArray>(a: T): T {
  const out = new (a.constructor as new (length: number) => T)(Math.max(2, a.length * 2));
  out.set(a);
  return out;
}
