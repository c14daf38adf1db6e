import { SingleBar } from 'cli-progress';

/** A progress bar on standard error when it is a terminal; nothing otherwise (the JSON result goes to standard output). */
export function progressBar(label: string): { update(this: void, done: number, total: number, item: string): void; stop(): void } {
  if (!process.stderr.isTTY) return { update: () => undefined, stop: () => undefined };
  const bar = new SingleBar({
    stream: process.stderr,
    format: `${label} [{bar}] {value}/{total} {item}`,
    hideCursor: true,
    clearOnComplete: true,
  });
  let started = false;
  return {
    update: (done, total, item) => {
      if (!started) bar.start(total, done, { item: '' });
      started = true;
      // A total may change on the way (a database that grew while it was copied).
      bar.setTotal(total);
      bar.update(done, { item: item.length > 40 ? `…${item.slice(-39)}` : item });
    },
    stop: () => started && bar.stop(),
  };
}
