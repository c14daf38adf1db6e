/**
 * Vectors as blobs: dense ones as their float32 values; sparse ones (an embedder that says so) as
 * (uint32 dimension, float32 value) pairs of their nonzero entries: the built-in embedder's 1,024
 * dimensions hold about 70 nonzeros, 560 bytes instead of 4 KiB. Which one a blob is follows from
 * its embedder, stored beside it.
 */
export function vectorBlob(v: Float32Array, sparse = false): Buffer {
  if (!sparse) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  let n = 0;
  for (const x of v) if (x !== 0) n++;
  const out = Buffer.alloc(n * 8);
  for (let d = 0, at = 0; d < v.length; d++) {
    if (v[d] === 0) continue;
    out.writeUInt32LE(d, at);
    out.writeFloatLE(v[d], at + 4);
    at += 8;
  }
  return out;
}

export function blobVector(b: Buffer, dimensions: number, sparse = false): Float32Array {
  if (!sparse) {
    // Copy: the blob's buffer may be shared and unaligned.
    const out = new Float32Array(b.byteLength / 4);
    new Uint8Array(out.buffer).set(b);
    return out;
  }
  const out = new Float32Array(dimensions);
  for (let at = 0; at + 8 <= b.byteLength; at += 8) {
    const d = b.readUInt32LE(at);
    if (d < dimensions) out[d] = b.readFloatLE(at + 4);
  }
  return out;
}
