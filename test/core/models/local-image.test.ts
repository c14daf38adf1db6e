import { crc32, inflateSync } from 'node:zlib';
import { imageSize, localImage } from '../../../core/models/vendors/local';

/** Reads a PNG back: its chunks (each CRC checked), IHDR fields and inflated scanlines. */
function readPng(bytes: Buffer) {
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const chunks: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + length);
    expect(bytes.readUInt32BE(at + 8 + length)).toBe(crc32(bytes.subarray(at + 4, at + 8 + length)));
    chunks.push({ type, data });
    at += 12 + length;
  }
  const ihdr = chunks[0].data;
  const idat = Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data));
  return {
    types: chunks.map((c) => c.type),
    width: ihdr.readUInt32BE(0),
    height: ihdr.readUInt32BE(4),
    depth: ihdr[8],
    colourType: ihdr[9],
    scanlines: inflateSync(idat),
  };
}

const png = async (prompt: string, size?: string, style?: string) =>
  Buffer.from((await localImage({ model: 'local-image', prompt, size, style })).b64, 'base64');

describe('local image model', () => {
  it('encodes a valid RGB PNG of the requested size (1024x1024 by default)', async () => {
    const r = await localImage({ model: 'local-image', prompt: 'a lighthouse at dusk', size: '1792x1024' });
    expect(r.mimeType).toBe('image/png');
    expect(r.revisedPrompt).toContain('a lighthouse at dusk');
    const wide = readPng(Buffer.from(r.b64, 'base64'));
    expect(wide).toMatchObject({ types: ['IHDR', 'IDAT', 'IEND'], width: 1792, height: 1024, depth: 8, colourType: 2 });
    expect(wide.scanlines.length).toBe(1024 * (1 + 1792 * 3));
    expect(readPng(await png('a lighthouse at dusk'))).toMatchObject({ width: 1024, height: 1024 });
    expect(readPng(await png('a lighthouse at dusk', '256x256'))).toMatchObject({ width: 256, height: 256 });
  });

  it('is deterministic: the same prompt and size give the same bytes; other prompts, sizes or styles differ', async () => {
    const a = await png('a red fox in the snow', '512x512');
    expect((await png('a red fox in the snow', '512x512')).equals(a)).toBe(true);
    expect((await png('a red fox in the grass', '512x512')).equals(a)).toBe(false);
    expect((await png('a red fox in the snow', '256x256')).equals(a)).toBe(false);
    expect((await png('a red fox in the snow', '512x512', 'natural')).equals(a)).toBe(false);
  });

  it('paints a picture, not a flat fill: many distinct colours', async () => {
    const { scanlines } = readPng(await png('colours', '256x256'));
    const colours = new Set<number>();
    for (let y = 0; y < 256; y++) {
      const row = y * (1 + 256 * 3);
      expect(scanlines[row]).toBe(0);
      for (let x = 0; x < 256; x += 8) colours.add(scanlines.readUIntBE(row + 1 + x * 3, 3));
    }
    expect(colours.size).toBeGreaterThan(50);
  });

  it('reads sizes as WIDTHxHEIGHT, rejecting nonsense and sides over 1792 with a 400', () => {
    expect(imageSize(undefined)).toEqual({ width: 1024, height: 1024 });
    expect(imageSize('auto')).toEqual({ width: 1024, height: 1024 });
    expect(imageSize('1024x1792')).toEqual({ width: 1024, height: 1792 });
    for (const bad of ['big', '0x10', '4096x4096', '10x', '-5x5']) {
      expect(() => imageSize(bad)).toThrow(expect.objectContaining({ kind: 'bad_request', code: 'invalid_size' }));
    }
  });
});
