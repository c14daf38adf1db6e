import type { Response } from 'express';
import { drained } from '../../edge/http/event-stream';

/**
 * OpenAI's embeddings answer (`{"object":"list","data":[{"object":"embedding","index","embedding"}],
 * "model","usage"}`), written by the route itself a slice of vectors at a time, the event loop given
 * back between slices (and the socket drained): 2,048 vectors of 1,024 numbers are two million
 * numbers to print, some 50 ms as one JSON.stringify of the whole answer, and megabytes of text.
 */
const SLICE = 64;

const base64Of = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');

/** A vector's numbers as a JSON array: as JSON.stringify prints them (a value that is not finite, which JSON cannot hold, as null). */
function floatsOf(v: Float32Array): string {
  const text = `[${v.join(',')}]`;
  return /[NI]/.test(text) ? JSON.stringify(Array.from(v)) : text;
}

export async function sendEmbeddings(
  res: Response,
  a: { model: string; vectors: Float32Array[]; promptTokens: number; format?: 'float' | 'base64' },
): Promise<void> {
  const item = (v: Float32Array, i: number) =>
    `{"object":"embedding","index":${i},"embedding":${a.format === 'base64' ? JSON.stringify(base64Of(v)) : floatsOf(v)}}`;
  const usage = JSON.stringify({ prompt_tokens: a.promptTokens, total_tokens: a.promptTokens });
  const tail = `],"usage":${usage}}`;
  const head = `{"object":"list","model":${JSON.stringify(a.model)},"data":[`;
  res.type('application/json');
  if (a.vectors.length <= SLICE) return void res.send(head + a.vectors.map(item).join(',') + tail);
  res.write(head);
  for (let from = 0; from < a.vectors.length && !res.destroyed; from += SLICE) {
    const text =
      (from ? ',' : '') +
      a.vectors
        .slice(from, from + SLICE)
        .map((v, k) => item(v, from + k))
        .join(',');
    if (!res.write(text)) await drained(res);
    await new Promise((resolve) => setImmediate(resolve));
  }
  res.end(tail);
}
