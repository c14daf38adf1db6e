import { hashingEmbedder } from '../../../core/shared/text/embedder';
import { blobVector, vectorBlob } from '../../../core/search/vector-blobs';

describe('vectors as blobs', () => {
  it('keep a sparse vector as its nonzero entries, and read it back exactly', async () => {
    const [v] = await hashingEmbedder(1024).embed(['glaciers retreat as the climate warms and sea levels rise']);
    const blob = vectorBlob(v, true);
    expect(blob.byteLength).toBe(8 * v.filter((x) => x !== 0).length);
    expect(blob.byteLength).toBeLessThan(200);
    expect(blobVector(blob, 1024, true)).toEqual(v);
  });

  it('keep a dense vector as its float32 values', () => {
    const v = Float32Array.from([0.5, -0.25, 0, 1]);
    const blob = vectorBlob(v);
    expect(blob.byteLength).toBe(16);
    expect(blobVector(blob, 4)).toEqual(v);
  });
});
