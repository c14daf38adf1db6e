import { CatalogModel } from '../../../core/models/catalog/catalog';
import type { ChatStream } from '../../../core/models/neutral';

/** A catalog model whose upstream is the given one. */
export const modelOf = (upstream: Record<string, unknown>, extra: Record<string, unknown> = {}): CatalogModel =>
  CatalogModel.parse({
    id: 'test-model',
    group: 'A',
    upstream,
    contextLength: 32_000,
    inputKinds: ['text', 'image', 'Docs', 'Video'],
    ...extra,
  });

/** Reads a stream to its end: its pieces, and how it ended. */
export async function drain(stream: ChatStream) {
  const pieces: string[] = [];
  for await (const p of stream.pieces) pieces.push(p);
  return { pieces, text: pieces.join(''), ...(await stream.done) };
}

/** Reads a stream that must fail midway: the pieces before, the error, and how `done` settled. */
export async function drainFailing(stream: ChatStream) {
  const pieces: string[] = [];
  let error: (Error & { code?: string }) | undefined;
  try {
    for await (const p of stream.pieces) pieces.push(p);
  } catch (err) {
    error = err as Error & { code?: string };
  }
  if (!error) throw new Error('expected the stream to fail');
  return { pieces, error, ...(await stream.done) };
}

/** The rejection of a promise that must fail. */
export const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as Error & { code?: string; retryAfterSeconds?: number },
  );

export const tick = () => new Promise((r) => setImmediate(r));

/** A 2x2 PNG's bytes, base64. */
export const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAEklEQVR42mNk+M9QzwAEjDAGACCDAv8cI7IoAAAAAElFTkSuQmCC';
