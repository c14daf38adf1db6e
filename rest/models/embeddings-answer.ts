import type { Response } from 'express';

/**
 * OpenAI's embeddings answer (`{"object":"list","data":[{"object":"embedding","index","embedding"}],
 * "model","usage"}`), written by the route itself: float vectors become JSON text a slice at a time,
 * and the event loop is given back between slices. 2,048 vectors of 1,024 numbers are two million
 * numbers to print: some 50 ms as one JSON.stringify of the whole answer.
 */
const SLICE = 64;

const base64Of = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');

/** A vector's numbers as a JSON array: as JSON.stringify prints them (a value that is not finite, which JSON cannot hold, as null). */
function floatsOf(v: Float32Array): string {
  const text = `[${v.join(',')}]`;
  return /[NI]/.test(text) ? JSON.stringify(Array.from(v)) : text;
}

export async function sendEmbeddings(res: Response, a: { model: string; vectors: Float32Array[]; promptTokens: number; format?: 'float' | 'base64' }): Promise<void> {
  const data: string[] = [];
  for (let i = 0; i < a.vectors.length; i++) {
    const v = a.vectors[i]!;
    data.push(`{"object":"embedding","index":${i},"embedding":${a.format === 'base64' ? JSON.stringify(base64Of(v)) : floatsOf(v)}}`);
    if (i % SLICE === SLICE - 1) await new Promise((resolve) => setImmediate(resolve));
  }
  const usage = JSON.stringify({ prompt_tokens: a.promptTokens, total_tokens: a.promptTokens });
  res.type('application/json').send(`{"object":"list","model":${JSON.stringify(a.model)},"data":[${data.join(',')}],"usage":${usage}}`);
}
