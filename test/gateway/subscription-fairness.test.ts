import { parse, type ExecutionResult } from 'graphql';
import pino from 'pino';
import { readSchemaFile } from '../../edge/graphql/sdl';
import { buildSubgraph } from '../../edge/graphql/subgraph';
import type { GraphContext } from '../../edge/graphql/context';
import { InProcessDataSource } from '../../gateway/local-source';
import { readSupergraph } from '../../gateway/supergraph';
import { federatedSubscriptions } from '../../gateway/subscriptions';

/**
 * Fairness between subscriptions (issue 36, the 500-subscriber fan-out): events that arrive
 * together (a model's pieces read from one socket in one go) are sent one per turn of the event
 * loop, so another subscription whose first event arrives meanwhile is not kept waiting behind
 * the whole burst.
 */
const log = pino({ level: 'silent' });
const chat = buildSubgraph('chat', readSchemaFile('chat/chat.graphql'), {}, log).schema;
const QUERY = parse('subscription { answerStream(input: { query: "x" }) { response } }');
const context = (): GraphContext => ({ headers: {}, callers: new Map(), memo: new Map() });

/** A subgraph's events for one subscription: all there at once, or the first only after the I/O now pending. */
function source(name: string, count: number, ready: 'now' | 'after-io') {
  let i = 0;
  const events: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      if (i >= count) return { done: true, value: undefined };
      const n = ++i;
      if (n === 1 && ready === 'after-io') await new Promise((resolve) => setImmediate(resolve));
      return { done: false, value: { data: { answerStream: { response: `${name}${n}` } } } };
    },
    async return() {
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return events;
}

describe('federated subscriptions', () => {
  it("send one event per turn, so another subscription's first event is not queued behind a burst", async () => {
    const sources = [source('a', 5, 'now'), source('b', 2, 'after-io')];
    let opened = 0;
    const subscriptions = federatedSubscriptions({
      supergraphSdl: readSupergraph(),
      dataSources: { chat: new InProcessDataSource(chat) },
      stream: { open: async () => sources[opened++] },
      log,
    });
    const seen: string[] = [];
    const consume = async () => {
      const events = await subscriptions.subscribe({ document: QUERY, context: context() });
      if (!('next' in events)) throw new Error(JSON.stringify(events));
      for await (const e of events) seen.push((e.data as { answerStream: { response: string } }).answerStream.response);
    };
    await Promise.all([consume(), consume()]);
    expect([...seen].sort()).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'b2']);
    // b's first event came while a's burst was being sent, not after all of it.
    expect(seen.indexOf('b1')).toBeLessThan(seen.indexOf('a5'));
  });
});
