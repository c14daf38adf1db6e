import { SpanStatusCode } from '@opentelemetry/api';
import type { ExecutionResult } from 'graphql';
import { noMetrics, secondsSince, type Metrics } from '../core/shared/telemetry/metrics';
import { inSpan, SpanKind, startSpan, type Trace } from '../core/shared/telemetry/tracing';
import { endSpan, hasErrors, watchedOpening } from '../edge/graphql/trace';

/**
 * Runs one fetch of a subgraph timed and in its span, under `parent` (the operation's trace);
 * `run` gets the fetch's own trace (the parent when nothing records). What it answers or throws passes through.
 */
export type TimedFetch = <T>(parent: Trace | undefined, run: (trace: Trace | undefined) => Promise<T>) => Promise<T>;

type Opened = AsyncIterableIterator<ExecutionResult> | ExecutionResult;

export interface SubgraphFetches {
  /** The fetches of `subgraph` (remote: over HTTP, else in this process). */
  of(subgraph: string, remote: boolean): TimedFetch;
  /** A subscription's stream on `subgraph`, opened by `open` with the stream's trace: timed and in its span, under `parent`, over its whole life. */
  stream(
    subgraph: string,
    remote: boolean,
    parent: Trace | undefined,
    open: (trace: Trace | undefined) => Promise<Opened>,
  ): Promise<Opened>;
}

/** Runs the fetch alone: a data source built without telemetry (unit tests). */
export const untimed: TimedFetch = (parent, run) => run(parent);

/**
 * platform_graphql_subgraph_fetch_duration_seconds{subgraph,outcome} around every fetch of the
 * gateway from a subgraph: the query plan's fetches, a subscription's per-event fetches, and the
 * subscription's own stream on the subgraph that owns its root field (timed from its opening to its
 * end). Outcome `error` when it failed or answered errors. A remote fetch is also a client span
 * `subgraph <name>`, whose context its request carries (remote-source.ts, subgraph-stream.ts). A
 * fetch in process is a call, not a hop: its resolvers run in the operation's trace, so the spans
 * they start (the services') are the operation's children, and no span of its own costs every
 * query the SDK's work for one (docs/observability.md); its time is in the histogram.
 */
export function subgraphFetches(metrics: Metrics = noMetrics): SubgraphFetches {
  const counting = metrics !== noMetrics;
  const duration = metrics.histogram({
    name: 'platform_graphql_subgraph_fetch_duration_seconds',
    help: "Fetches of the gateway from its subgraphs, in process or remote, subscriptions' streams over their whole life, by subgraph and outcome (error: failed or answered errors)",
    labels: ['subgraph', 'outcome'],
  });

  /** What one subgraph's fetches share: their span's name and attributes (remote), their labels, their timing. */
  const shapes = new Map<string, ReturnType<typeof shape>>();
  const shape = (subgraph: string) => {
    const ok = { subgraph, outcome: 'ok' };
    const error = { subgraph, outcome: 'error' };
    return {
      name: `subgraph ${subgraph}`,
      attributes: { 'graphql.subgraph.name': subgraph },
      now: () => (counting ? process.hrtime.bigint() : 0n),
      observe(start: bigint, failedIt: boolean) {
        if (counting) duration.observe(failedIt ? error : ok, secondsSince(start));
      },
      /** Runs one fetch timed; `answeredErrors` is told when its answer carries errors. */
      async timed<T>(run: () => Promise<T>, answeredErrors?: () => void): Promise<T> {
        const start = this.now();
        let failedIt = true;
        try {
          const answer = await run();
          failedIt = hasErrors(answer);
          if (failedIt) answeredErrors?.();
          return answer;
        } finally {
          this.observe(start, failedIt);
        }
      },
    };
  };
  const shapeOf = (subgraph: string) => {
    let s = shapes.get(subgraph);
    if (!s) shapes.set(subgraph, (s = shape(subgraph)));
    return s;
  };

  return {
    of(subgraph, remote) {
      const s = shapeOf(subgraph);
      if (!remote) return (parent, run) => s.timed(() => run(parent));
      return (parent, run) =>
        inSpan(
          parent,
          s.name,
          s.attributes,
          (span, trace) =>
            s.timed(
              () => run(span.isRecording() ? trace : parent),
              () => span.setStatus({ code: SpanStatusCode.ERROR }),
            ),
          SpanKind.CLIENT,
        );
    },

    async stream(subgraph, remote, parent, open) {
      const s = shapeOf(subgraph);
      const start = s.now();
      if (!remote)
        return watchedOpening(
          () => open(parent),
          (error) => s.observe(start, error),
        );
      const { span, trace } = startSpan(parent, s.name, s.attributes, SpanKind.CLIENT);
      const ended = (error: boolean, err?: unknown) => {
        s.observe(start, error);
        endSpan(span, error, err);
      };
      return watchedOpening(() => open(span.isRecording() ? trace : parent), ended);
    },
  };
}
