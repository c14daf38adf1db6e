import { createHash } from 'node:crypto';
import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import {
  execute,
  getOperationAST,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

const SCHEMA_FIELDS = new Set(['__schema', '__type', '__typename']);

/**
 * Whether an operation only asks about the schema: a query whose root fields (fragments included)
 * are all `__schema`, `__type` or `__typename`, declaring no variables, so that its answer depends
 * on the schema and the document alone.
 */
export function pureIntrospection(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  if (operation.operation !== OperationTypeNode.QUERY || operation.variableDefinitions?.length) return false;
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const entered = new Set<string>();
  const only = (set: SelectionSetNode): boolean =>
    set.selections.every((s) => {
      if (s.kind === Kind.FIELD) return SCHEMA_FIELDS.has(s.name.value);
      if (s.kind === Kind.INLINE_FRAGMENT) return only(s.selectionSet);
      if (entered.has(s.name.value)) return true;
      entered.add(s.name.value);
      const fragment = fragments.get(s.name.value);
      return fragment !== undefined && only(fragment.selectionSet);
    });
  return only(operation.selectionSet);
}

export interface IntrospectionCache {
  /**
   * The answer of an operation that is pure introspection, as graphql-js executes it on `schema`,
   * from the cache when the same text (and requested operation name) was answered on the same
   * schema before; undefined for any other operation (the server executes it as usual).
   */
  answer(
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | null | undefined,
    source: string,
  ): Promise<ExecutionResult | undefined>;
  /** The JSON body of an answer already given for this text on the schema answered last, if any. */
  body(source: string, operationName: string | null | undefined): Buffer | undefined;
}

interface Entry {
  schema: GraphQLSchema;
  result: ExecutionResult;
  body: Buffer;
}

// No name and an empty name are different requests (the second names no operation of the document).
const keyOf = (source: string, operationName: string | null | undefined) =>
  `${createHash('sha256').update(source).digest('base64')}${operationName == null ? '' : `\0${operationName}`}`;

/**
 * Introspection of an unchanged schema is the same answer every time, and executing a full one
 * takes milliseconds of the event loop: a flood of them stalled every other request. Answers are
 * kept by the document's text (its SHA-256 and the operation name asked for) and the schema's
 * identity, with their JSON body, least recently used dropped past `maxBytes` of bodies (one over
 * a quarter of it is not kept). Only documents that passed validation get here, so
 * GRAPHQL_INTROSPECTION=false (a validation rule) still refuses introspection first.
 */
export function introspectionCache(maxBytes = 16 * 2 ** 20): IntrospectionCache {
  const entries = new Map<string, Entry>();
  let total = 0;
  let current: GraphQLSchema | undefined;
  const drop = (key: string) => {
    total -= entries.get(key)?.body.length ?? 0;
    entries.delete(key);
  };
  const hit = (key: string, schema: GraphQLSchema | undefined) => {
    const known = entries.get(key);
    if (!known || known.schema !== schema) return undefined;
    entries.delete(key);
    entries.set(key, known);
    return known;
  };
  return {
    async answer(schema, document, operationName, source) {
      current = schema;
      const operation = getOperationAST(document, operationName);
      if (!operation || !pureIntrospection(document, operation)) return undefined;
      const key = keyOf(source, operationName);
      const known = hit(key, schema);
      if (known) return known.result;
      const result = await execute({ schema, document, operationName });
      // Not expected of a validated document; the server's own execution then reports it.
      if (result.errors?.length) return undefined;
      // As Apollo Server writes a JSON answer.
      const body = Buffer.from(`${JSON.stringify({ data: result.data })}\n`);
      drop(key);
      if (body.length <= maxBytes / 4) {
        entries.set(key, { schema, result, body });
        total += body.length;
        while (total > maxBytes) drop(entries.keys().next().value!);
      }
      return result;
    },
    // Every field of pure introspection starts with `__`: any other text is no hit, and is not hashed.
    body: (source, operationName) => (entries.size && source.includes('__') ? hit(keyOf(source, operationName), current)?.body : undefined),
  };
}

/**
 * Apollo Server's side of the cache: a pure introspection operation is answered from it before
 * execution (at the gateway, before the query planner sees it). Also: a document graphql-js found
 * valid that the gateway's query planner cannot plan (INVALID_GRAPHQL, e.g. `isOneOf` of graphql
 * 16.9+ introspection beside other fields, which federation's own schema model does not know) is
 * the client's request, not a server failure: a 400 validation error, not a 500. `schema`, when
 * given, is the one introspection describes instead of Apollo's (the gateway's, `@defer` declared).
 */
export function introspectionPlugin(cache: IntrospectionCache, schema?: GraphQLSchema): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async responseForOperation(rc) {
          const result = await cache.answer(schema ?? rc.schema, rc.document, rc.request.operationName, rc.source);
          return result ? { http: { status: undefined, headers: new HeaderMap() }, body: { kind: 'single', singleResult: result } } : null;
        },
        async didEncounterErrors(rc) {
          const unplannable = rc.errors.filter((e) => e.extensions?.code === 'INVALID_GRAPHQL');
          if (!unplannable.length) return;
          for (const e of unplannable) (e.extensions as Record<string, unknown>).code = 'GRAPHQL_VALIDATION_FAILED';
          rc.response.http.status = 400;
        },
      };
    },
  };
}
