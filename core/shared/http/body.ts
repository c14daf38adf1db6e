import { PlatformError } from '../errors';
import { abortedBy, transportError, unreadable } from './failures';

/**
 * Reading an answer's body with its failures mapped: a silence past the read timeout or a broken
 * connection midway is the platform's error (failures.ts), the caller's abort its signal's reason.
 */

/** Bodies read whole (JSON answers, images) stay under this; streams are not bounded. */
export const MAX_WHOLE_BODY = 64 * 1024 * 1024;

/** What went wrong while reading a body, as the caller should see it. */
export const readFailure = (who: string, signal: AbortSignal | undefined, err: unknown): unknown =>
  abortedBy(signal, err) ?? (err instanceof PlatformError ? err : transportError(who, err));

/** The body's chunks as they arrive; leaving the loop early closes the connection. */
export async function* chunksOf(body: AsyncIterable<Uint8Array>, who: string, signal?: AbortSignal): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of body) yield chunk as Buffer;
  } catch (err) {
    throw readFailure(who, signal, err);
  }
}

/**
 * The whole body as text. Past `limit` bytes it is cut there (`truncate`: an error answer's text is
 * only quoted) or refused as 502 `upstream_bad_response`.
 */
export async function readText(
  body: AsyncIterable<Uint8Array>,
  who: string,
  signal: AbortSignal | undefined,
  opts: { limit?: number; truncate?: boolean } = {},
): Promise<string> {
  const limit = opts.limit ?? MAX_WHOLE_BODY;
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      parts.push(chunk);
      size += chunk.length;
      if (size > limit) {
        if (opts.truncate) break;
        throw unreadable(who, `a body over ${limit} bytes`);
      }
    }
  } catch (err) {
    throw readFailure(who, signal, err);
  }
  const one = parts.length === 1 && Buffer.isBuffer(parts[0]) ? parts[0] : undefined;
  return (one ?? Buffer.concat(parts)).toString('utf8');
}

/** The whole body as JSON; 502 `upstream_bad_response` when it is not JSON. */
export async function readJson(body: AsyncIterable<Uint8Array>, who: string, signal?: AbortSignal, limit?: number): Promise<unknown> {
  const text = await readText(body, who, signal, { limit });
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw unreadable(who, 'not JSON');
  }
}
