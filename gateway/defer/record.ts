import type { GraphQLDataSource } from '@apollo/gateway';
import { GraphQLError } from 'graphql';

/**
 * The subgraph fetches of one deferred operation, recorded so each part can replay what an earlier
 * part fetched: a part runs the plan from the start (@apollo/gateway's executor keeps no data
 * between runs), and its fetches already made are answered here, their data as it came and their
 * errors left out (the part that made them has reported them). Only the fetches new to a part go to
 * the subgraphs, so a mutation is sent once. Identical fetches in flight at once share one. Once the
 * client has gone (`stop()`), a new fetch is refused instead of sent.
 */
export interface RecordedSources {
  sources: Record<string, GraphQLDataSource>;
  /** The client has gone: no further fetch leaves. */
  stop(): void;
}

type Response = Awaited<ReturnType<GraphQLDataSource['process']>>;

export function recordedSources(real: Record<string, GraphQLDataSource>): RecordedSources {
  const record = new Map<string, Promise<string>>();
  let stopped = false;
  const replay = (json: string): Response => ({ data: JSON.parse(json) as Record<string, unknown> | null });
  const wrap = (name: string, source: GraphQLDataSource): GraphQLDataSource => ({
    process: async (options) => {
      const { query, variables } = options.request;
      const key = JSON.stringify([name, query, variables ?? null]);
      const known = record.get(key);
      if (known) return replay(await known);
      if (stopped) throw new GraphQLError('The client has gone', { extensions: { code: 'CLIENT_GONE' } });
      const fetched = source.process(options);
      // The data as it came, before the executor merges (and so changes) it; none when the fetch
      // failed (never sent again: it may be a mutation).
      record.set(
        key,
        fetched.then(
          (r) => JSON.stringify(r.data ?? null),
          () => 'null',
        ),
      );
      return fetched;
    },
  });
  return {
    sources: Object.fromEntries(Object.entries(real).map(([name, source]) => [name, wrap(name, source)])),
    stop: () => void (stopped = true),
  };
}
