import { randomBytes } from 'node:crypto';
import { base64Bytes, decodeBase64 } from '../../../core/shared/base64';

/** Strict base64 (RFC 4648 §4), decoded a slice per turn: what `uploadDocument` reads a file with. */
describe('decodeBase64', () => {
  it('decodes the standard alphabet, with or without padding, at every length', async () => {
    for (let n = 0; n <= 9; n++) {
      const bytes = randomBytes(n);
      const padded = bytes.toString('base64');
      for (const text of [padded, padded.replace(/=+$/, '')]) {
        expect(base64Bytes(text)).toBe(n);
        expect(await decodeBase64(text)).toEqual(bytes);
      }
    }
  });

  it('decodes text of several slices (over 1 MiB of characters) whole, giving the loop back between them', async () => {
    const bytes = randomBytes(2 * 1024 * 1024 + 5);
    const text = bytes.toString('base64');
    let othersRan = false;
    const decoding = decodeBase64(text);
    setImmediate(() => {
      othersRan = true;
    });
    const decoded = await decoding;
    // Queued after the decoding began, run before it ended: it gave the loop back between slices.
    expect(othersRan).toBe(true);
    // Buffer#equals: jest's toEqual walks two megabytes element by element.
    expect(decoded?.equals(bytes)).toBe(true);
    expect(base64Bytes(text)).toBe(bytes.length);
  });

  it.each([
    ['a character outside the alphabet', 'aGVsbG8!'],
    ['white space', 'aGVs bG8='],
    ['a line break', 'aGVsbG8g\nd29ybGQ='],
    ['the URL-safe alphabet', 'aGVsbG8-_w'],
    ['padding that does not fit the length', 'aGVsbG8=='],
    ['padding on a whole group', 'aGVsbG8h='],
    ['padding inside the text', 'aGV=bG8h'],
    ['a length no base64 text has', 'aGVsb'],
    ['non-zero bits after the last byte', 'QR=='],
    ['a character outside Latin-1', 'aGVsbG8€'],
  ])('refuses %s', async (_, text) => {
    expect(await decodeBase64(text)).toBeUndefined();
  });

  it('refuses a bad character in a later slice', async () => {
    const text = `${randomBytes(3 * 1024 * 1024).toString('base64')}*AAA`;
    expect(await decodeBase64(text)).toBeUndefined();
  });

  it('reads the decoded size from the length alone', () => {
    expect(base64Bytes('')).toBe(0);
    expect(base64Bytes('QQ')).toBe(1);
    expect(base64Bytes('QQ==')).toBe(1);
    expect(base64Bytes('QUI')).toBe(2);
    expect(base64Bytes('QUJD')).toBe(3);
    expect(base64Bytes('Q')).toBeUndefined();
    expect(base64Bytes('QUJD=')).toBeUndefined();
  });
});
