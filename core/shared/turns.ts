/**
 * Work that holds the event loop for a while (parsing a large JSON body: some 15 ms for a megabyte
 * of small objects, and the synchronous checks and conversions that follow it; writing a megabyte
 * of tool definitions out as JSON to count them), one piece per turn of the loop. Without this,
 * eight large bodies finishing in the same turn were parsed back to back (over 100 ms) before the
 * loop read anyone else's request; now every other caller (a health check, a small call) is read
 * between two of them.
 */
const queue: (() => void)[] = [];
let scheduled = false;

function drain() {
  queue.shift()?.();
  // The next one in the next turn: the loop polls its sockets in between.
  if (queue.length) setImmediate(drain);
  else scheduled = false;
}

/** Runs `work` at the loop's next turn, after the work queued before it, one piece per turn. */
export function inItsTurn(work: () => void): void {
  queue.push(work);
  if (!scheduled) {
    scheduled = true;
    setImmediate(drain);
  }
}

/** Resolves in a turn of its own (inItsTurn): `await` it before more such work. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => inItsTurn(resolve));
