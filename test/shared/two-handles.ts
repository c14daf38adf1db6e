/**
 * What every port contract (test/core/<service>/store-contracts*.ts) runs on: two handles on one
 * backing store (two worker processes, or two replicas on one database), and the time the cases run
 * at (the stores keep the times they are given: a test clock, or real time where the server keeps
 * time itself, as Redis does).
 */
export interface Opened<T> {
  one: T;
  two: T;
  now(): number;
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Opens before each case and closes after it; the case reads the handles through the getter. */
export function useOpened<O extends { close(): Promise<void> }>(open: () => Promise<O>): () => O {
  let opened: O | undefined;
  beforeEach(async () => {
    opened = await open();
  });
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
  });
  return () => opened!;
}
