/**
 * One streamed answer read as it arrives, straight from the gateway or through the chat proxy.
 * Every piece of the fake upstream's answer is its send time (`[[t:<ms>]]`, performance.timeOrigin
 * + performance.now() in the upstream's process); this client notes when each one arrived on the
 * same scale. The two processes' scales may differ by a constant, which cancels when one way's
 * figures are subtracted from the other's.
 */
import { performance } from 'node:perf_hooks';
import type { Client } from 'undici';

export interface Streamed {
  /** Request sent to the first piece of the answer, ms. */
  first: number;
  /** Request sent to the end of the stream, ms. */
  whole: number;
  /** Request sent to the upstream writing its first piece, ms (plus the clocks' constant offset). */
  toUpstream: number;
  /** Per piece: arrival here minus its send time upstream, ms (plus the clocks' constant offset). */
  gaps: number[];
}

const STAMP = /\[\[t:(\d+(?:\.\d+)?)\]\]/g;
const now = () => performance.timeOrigin + performance.now();

/** POSTs `body` to `path` on `client` and reads the stream to its end; throws unless it is 200 with `pieces` pieces and `end`. */
export async function streamOnce(
  client: Client,
  path: string,
  body: string,
  headers: Record<string, string>,
  pieces: number,
  end: string,
): Promise<Streamed> {
  const t0 = now();
  const res = await client.request({ method: 'POST', path, headers, body });
  let text = '';
  let scanned = 0;
  let first = 0;
  const sent: number[] = [];
  const gaps: number[] = [];
  for await (const chunk of res.body) {
    const at = now();
    text += (chunk as Buffer).toString('utf8');
    STAMP.lastIndex = scanned;
    // Only whole stamps advance `scanned`: one cut between two reads is found complete next time.
    for (let m = STAMP.exec(text); m; m = STAMP.exec(text)) {
      first ||= at;
      sent.push(Number(m[1]));
      gaps.push(at - Number(m[1]));
      scanned = STAMP.lastIndex;
    }
  }
  const t2 = now();
  if (res.statusCode !== 200 || sent.length !== pieces || !text.includes(end)) {
    throw new Error(`POST ${path}: status ${res.statusCode}, ${sent.length} of ${pieces} pieces, body ${text.slice(0, 400)}`);
  }
  return { first: first - t0, whole: t2 - t0, toUpstream: sent[0] - t0, gaps };
}
