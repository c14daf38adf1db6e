import { nextTurn } from './turns';

/**
 * Base64 text as RFC 4648 §4 writes it (the standard alphabet `A-Z a-z 0-9 + /`; the `=` padding
 * optional), decoded strictly and without holding the event loop: a file's worth of it (a GraphQL
 * upload, up to GRAPHQL_MAX_BODY_BYTES) is decoded a slice per turn (core/shared/turns.ts). Node's
 * own decoder skips what it does not know and takes the URL-safe alphabet too; here each slice is
 * encoded again and must give back the very text, so any other character, misplaced padding or
 * non-canonical last bits refuse the whole text (RFC 4648 §3.3, §3.5: decoders may reject them).
 * A regular expression over 16 MiB of text took some 130 ms at once; this takes about 40 ms in all,
 * in 1 MiB slices.
 */
const SLICE = 1 << 20; // characters: a multiple of 4, so every slice but the last decodes whole

/** The text without its padding, when the padding fits its length; undefined when the length cannot be base64. */
function unpadded(text: string): string | undefined {
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const body = pad ? text.slice(0, -pad) : text;
  const rest = body.length % 4;
  if (rest === 1 || (pad && pad !== 4 - rest)) return undefined;
  return body;
}

/** How many bytes `text` decodes to, read from its length alone; undefined when no base64 text is that long. */
export function base64Bytes(text: string): number | undefined {
  const body = unpadded(text);
  return body === undefined ? undefined : Math.floor((body.length * 3) / 4);
}

/** The bytes of strict base64 text (see above); undefined when the text is not that. */
export async function decodeBase64(text: string): Promise<Buffer | undefined> {
  const body = unpadded(text);
  if (body === undefined) return undefined;
  const out = Buffer.allocUnsafe(Math.floor((body.length * 3) / 4));
  let written = 0;
  for (let at = 0; at < body.length; at += SLICE) {
    if (at) await nextTurn();
    const piece = body.slice(at, at + SLICE);
    const bytes = Buffer.from(piece, 'base64');
    const again = bytes.toString('base64');
    if ((piece.length % 4 ? again.replace(/=+$/, '') : again) !== piece) return undefined;
    written += bytes.copy(out, written);
  }
  return out;
}
