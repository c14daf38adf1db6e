import type { GraphQLDataSource } from '@apollo/gateway';
import { print, type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { Logger } from 'pino';
import type { GraphContext } from '../../edge/graphql/context';
import { formatExecutionError } from '../../edge/graphql/errors';
import type { ApolloPlanner, DeferPlan, DeferredPart, PlanSteps } from '../apollo-planner';
import { labelDefers, partDocument, withAncestors, withoutDefers, type LabelledOperation } from './document';
import { itemsOf, streamedOut, withoutPlaceholders, type Payload } from './payloads';
import { recordedSources } from './record';

/** One query or mutation with `@defer` as a transport hands it over (validated against the API schema, bounded by the limits). */
export interface DeferredRequest {
  operation: LabelledOperation;
  variables: Record<string, unknown>;
  context: GraphContext;
  /** The client takes parts (multipart, SSE, graphql-ws); false: one result, the deferred fragments inline. */
  incremental: boolean;
}

export type DeferredOutcome = AsyncIterableIterator<Payload> | ExecutionResult;

export interface DeferredOperations {
  /** The operation ready to run in parts; undefined when it has no `@defer` (the caller runs it as usual). */
  prepare: (
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Record<string, unknown>,
  ) => LabelledOperation | undefined;
  /** The operation's parts (an iterator whose `return()` stops the fetches still to come), or its one result. */
  execute(request: DeferredRequest): Promise<DeferredOutcome>;
}

export interface DeferredOptions {
  planner: ApolloPlanner;
  /** The gateway's data sources by subgraph name. */
  dataSources: Record<string, GraphQLDataSource>;
  log: Logger;
  /** Plans kept, least recently used dropped (default 500). */
  maxPlans?: number;
  /** Sees the errors of each part (the gateway keeps the server-side ones among its recent errors). */
  observe?: (errors: readonly GraphQLError[], operation: LabelledOperation, context: GraphContext) => void;
}

/** The labels of the fragments a plan delivers apart. */
function apartIn(parts: readonly DeferredPart[], into = new Set<string>()): Set<string> {
  for (const p of parts) {
    into.add(p.label);
    apartIn(p.nested, into);
  }
  return into;
}

/**
 * `@defer` through the gateway (@apollo/gateway plans it but does not execute it). The operation's
 * `@defer`s are labelled (document.ts) and planned with defer on (apollo-planner.ts); the initial
 * part runs the plan's primary steps, shaped by the operation without its deferred fragments; each
 * deferred part then runs its own steps after its parent's, the fetches made before replayed
 * (record.ts), shaped with its fragment kept, and its items are the fragment's fields where it
 * applies (payloads.ts). Parts run at once when their parent has been sent and are sent as they end
 * (a nested fragment's after its parent's). A fragment the planner does not split (or whose plan
 * cannot be run apart) comes inline, as the draft allows. A `@stream` list is fetched whole: its first
 * items go in the initial part, the rest in a part right after it (payloads.ts streamedOut).
 */
export function deferredOperations(opts: DeferredOptions): DeferredOperations {
  const { planner, log } = opts;
  const plans = new Map<string, DeferPlan | undefined>();
  const maxPlans = opts.maxPlans ?? 500;
  const planOf = (document: DocumentNode, operationName: string | undefined) => {
    const key = `${operationName ?? ''}\n${print(document)}`;
    if (plans.has(key)) {
      const known = plans.get(key);
      plans.delete(key);
      plans.set(key, known);
      return known;
    }
    const planned = planner.planDefer(document, operationName);
    plans.set(key, planned);
    if (plans.size > maxPlans) plans.delete(plans.keys().next().value!);
    return planned;
  };
  const format = (errors: ExecutionResult['errors']): GraphQLFormattedError[] => (errors ?? []).map((e) => formatExecutionError(e, log));

  /** One result: the operation planned and run without its `@defer`s. */
  const whole = async (labelled: LabelledOperation, variables: Record<string, unknown>, context: GraphContext) => {
    const document = withoutDefers(labelled);
    const plan = planOf(document, labelled.operationName)!;
    const result = await planner.runSteps(
      plan.initial,
      { document, operationName: labelled.operationName, variables, context },
      opts.dataSources,
    );
    return withoutPlaceholders(result);
  };

  const parts = (labelled: LabelledOperation, plan: DeferPlan, variables: Record<string, unknown>, context: GraphContext) => {
    const record = recordedSources(opts.dataSources);
    const apart = apartIn(plan.deferred);
    const inline = [...labelled.fragments.keys()].filter((l) => !apart.has(l));
    const run = async (steps: PlanSteps, label?: string) => {
      const keep = new Set([...inline, ...(label === undefined ? [] : withAncestors(labelled, label))]);
      const document = partDocument(labelled, keep);
      const r = await planner.runSteps(steps, { document, operationName: labelled.operationName, variables, context }, record.sources);
      if (r.errors?.length) opts.observe?.(r.errors, labelled, context);
      return { data: withoutPlaceholders(r.data), errors: format(r.errors) };
    };

    // Payloads ready and not yet read, the parts still running, and a reader waiting.
    const ready: Payload[] = [];
    let failure: unknown;
    let running = 0;
    let ended = false;
    let wake: (() => void) | undefined;
    const push = (p: Payload) => {
      ready.push(p);
      wake?.();
    };
    const launch = (part: DeferredPart, before: unknown) => {
      running++;
      run(part.steps, part.label).then(
        ({ data, errors }) => {
          running--;
          if (ended) return;
          const fragment = labelled.fragments.get(part.label)!;
          const items = itemsOf(fragment, before, data, errors, apart);
          for (const nested of part.nested) launch(nested, data);
          if (items.length || !running) push({ ...(items.length ? { incremental: items } : {}), hasNext: running > 0 });
        },
        (err: unknown) => {
          running--;
          failure ??= err;
          wake?.();
        },
      );
    };
    let started = false;
    const start = async (): Promise<Payload> => {
      started = true;
      const { data, errors } = await run(plan.initial);
      if (!data) return { data, ...(errors.length ? { errors } : {}), hasNext: false };
      for (const part of plan.deferred) launch(part, data);
      // Streamed lists: their first items now, the rest next (before any deferred part's items, which may point into them).
      const { data: shown, rest } = streamedOut(data, labelled.streams);
      rest.forEach((item, i) => ready.push({ incremental: [item], hasNext: i < rest.length - 1 || running > 0 }));
      return { data: shown, ...(errors.length ? { errors } : {}), hasNext: rest.length > 0 || running > 0 };
    };

    const payloads: AsyncIterableIterator<Payload> = {
      async next() {
        if (!started) return { done: false, value: await start() };
        for (;;) {
          if (ended) return { done: true, value: undefined };
          if (failure !== undefined) {
            ended = true;
            throw failure instanceof Error ? failure : new Error('A deferred part failed', { cause: failure });
          }
          const p = ready.shift();
          if (p) {
            if (!p.hasNext) ended = true;
            return { done: false, value: p };
          }
          if (!running) return { done: true, value: undefined };
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      },
      async return() {
        ended = true;
        record.stop();
        wake?.();
        return { done: true, value: undefined };
      },
      async throw() {
        return payloads.return!();
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
    return payloads;
  };

  return {
    prepare: (document, operationName, variables) => labelDefers(document, operationName ?? undefined, variables),
    async execute({ operation, variables, context, incremental }) {
      const apart = operation.fragments.size || operation.streams.length;
      const plan = incremental && apart ? planOf(operation.document, operation.operationName) : undefined;
      if (!plan || (!plan.deferred.length && !operation.streams.length)) return whole(operation, variables, context);
      return parts(operation, plan, variables, context);
    },
  };
}
