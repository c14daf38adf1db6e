import type { ChatDone, ChatStream } from '../neutral';

/**
 * A chat attempt lasts until its answer's first piece reached the gateway (issue 35: fall back only
 * before the first byte reached the caller): a stream that fails before it is the attempt's
 * failure, and the router tries the next; after it the stream is the caller's, and a failure
 * midway ends it with the vendor's error event in each door, as it always did.
 */
export async function firstPiece(s: ChatStream): Promise<{ stream: ChatStream }> {
  // Its `done` settles whatever happens; a stream given up here must not leave it unobserved.
  s.done.catch(() => undefined);
  const it = s.pieces[Symbol.asyncIterator]();
  let first: IteratorResult<string>;
  try {
    first = await it.next();
  } catch (err) {
    await closeQuietly(it);
    throw err;
  }
  return { stream: { pieces: resumed(first, it), done: s.done } };
}

/**
 * A whole answer (`stream: false`) read whole inside the attempt: a vendor's content refusal in
 * its finish reason can then still go to the model's `contentFallback` (router.ts).
 */
export async function wholeAnswer(s: ChatStream): Promise<{ stream: ChatStream; finish: ChatDone['finishReason'] }> {
  s.done.catch(() => undefined);
  const pieces: string[] = [];
  for await (const p of s.pieces) pieces.push(p);
  const done = await s.done;
  // Its end is told once the pieces were read again, as the upstream's was (a guard reading them sets it).
  let ended!: () => void;
  const read = new Promise<void>((r) => (ended = r));
  return { stream: { pieces: replay(pieces, ended), done: read.then(() => done) }, finish: done.finishReason };
}

async function* resumed(first: IteratorResult<string>, it: AsyncIterator<string>): AsyncGenerator<string> {
  try {
    if (first.done) return;
    yield first.value;
    for (;;) {
      const n = await it.next();
      if (n.done) return;
      yield n.value;
    }
  } finally {
    await closeQuietly(it);
  }
}

async function* replay(pieces: string[], ended: () => void): AsyncGenerator<string> {
  try {
    yield* pieces;
  } finally {
    ended();
  }
}

async function closeQuietly(it: AsyncIterator<string>) {
  try {
    await it.return?.();
  } catch {
    // Closing a broken stream may throw its failure again: already reported.
  }
}
