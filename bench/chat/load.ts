/**
 * Answers per second at a fixed number of concurrent streams: that many loops, each on its own
 * keep-alive connection, asking question after question and reading each stream to its end
 * (autocannon cannot read a stream as it arrives). Only answers finished inside the measured
 * window count; the warm-up's are discarded.
 */
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { WAYS, type Asker, type Question, type Way } from './ways';

export interface Throughput {
  way: Way;
  streams: number;
  seconds: number;
  answers: number;
  perSecond: number;
  whole: number[];
  first: number[];
  errors: number;
  firstError?: string;
}

async function run(url: string, a: Asker, way: Way, qs: readonly Question[], streams: number, seconds: number): Promise<Throughput> {
  const end = performance.now() + seconds * 1000;
  const out: Throughput = { way, streams, seconds, answers: 0, perSecond: 0, whole: [], first: [], errors: 0 };
  let next = 0;
  const loop = async () => {
    const client = new Client(url, { pipelining: 1, keepAliveTimeout: 30_000 });
    try {
      while (performance.now() < end) {
        try {
          const s = await a.ask(client, way, qs[next++ % qs.length]);
          if (performance.now() > end) break;
          out.answers++;
          out.whole.push(s.whole);
          out.first.push(s.first);
        } catch (err) {
          out.errors++;
          out.firstError ??= (err as Error).message.slice(0, 300);
        }
      }
    } finally {
      await client.close();
    }
  };
  await Promise.all(Array.from({ length: streams }, loop));
  out.perSecond = out.answers / seconds;
  return out;
}

/** Each way after its own warm-up. */
export async function throughput(
  url: string,
  a: Asker,
  qs: readonly Question[],
  streams: number,
  seconds: number,
  warmup: number,
): Promise<Throughput[]> {
  const rows: Throughput[] = [];
  for (const way of WAYS) {
    if (warmup > 0) await run(url, a, way, qs, streams, warmup);
    process.stderr.write(`${way}: ${streams} concurrent streams for ${seconds} s...\n`);
    rows.push(await run(url, a, way, qs, streams, seconds));
  }
  return rows;
}
