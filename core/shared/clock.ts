/** Time as a port, so tests can move it. Milliseconds since the epoch. */
export interface Clock {
  now(this: void): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const epochSeconds = (clock: Clock): number => Math.floor(clock.now() / 1000);
