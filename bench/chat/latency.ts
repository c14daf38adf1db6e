/**
 * One client, calls in a row: each question asked both ways on the same keep-alive connection (so
 * the same platform worker answers both), the order alternating, with a new connection per round
 * so the rounds spread over the workers. A pause of the shared machine lands on both ways alike.
 */
import { Client } from 'undici';
import type { Streamed } from './stream';
import { WAYS, type Asker, type Question, type Way } from './ways';

export interface WayTimes {
  way: Way;
  first: number[];
  whole: number[];
  toUpstream: number[];
  gaps: number[];
}

const connection = (url: string) => new Client(url, { pipelining: 1, keepAliveTimeout: 30_000 });

/**
 * Every worker's JIT warmed on both ways: 2 x workers new connections (node:cluster hands each to
 * the next worker), `calls` questions each.
 */
export async function warmWorkers(url: string, a: Asker, qs: readonly Question[], workers: number, calls: number): Promise<void> {
  for (let c = 0; c < 2 * workers; c++) {
    const client = connection(url);
    try {
      for (let i = 0; i < calls; i++) for (const way of WAYS) await a.ask(client, way, qs[(c * calls + i) % qs.length]);
    } finally {
      await client.close();
    }
  }
}

export async function rounds(
  url: string,
  a: Asker,
  qs: readonly Question[],
  calls: number,
  count: number,
  tick: (n: number) => void,
): Promise<WayTimes[]> {
  const got = new Map<Way, Streamed[]>(WAYS.map((w) => [w, []]));
  const per = Math.ceil(calls / count);
  for (let r = 0; r < count; r++) {
    const client = connection(url);
    try {
      for (let i = 0; i < per; i++) {
        const q = qs[(r * per + i) % qs.length];
        for (const way of i % 2 ? [...WAYS].reverse() : WAYS) got.get(way)!.push(await a.ask(client, way, q));
        tick(r * per + i + 1);
      }
    } finally {
      await client.close();
    }
  }
  return WAYS.map((way) => {
    const s = got.get(way)!;
    return {
      way,
      first: s.map((x) => x.first),
      whole: s.map((x) => x.whole),
      toUpstream: s.map((x) => x.toUpstream),
      gaps: s.flatMap((x) => x.gaps),
    };
  });
}
