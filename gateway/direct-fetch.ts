import {
  getNamedType,
  isEnumType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  parse,
  print,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/** What a plan's single fetch is, as far as this file needs it (@apollo/query-planner's FetchNode). */
export interface SingleFetch {
  kind: string;
  serviceName: string;
  operation: string;
  operationKind?: string;
  requires?: unknown;
  inputRewrites?: readonly unknown[];
  outputRewrites?: readonly unknown[];
  contextRewrites?: readonly unknown[];
}

type Fragments = ReadonlyMap<string, FragmentDefinitionNode>;

/** The client's operation as a plan's direct answer is checked against. */
export interface ClientSelection {
  document: DocumentNode;
  operation: OperationDefinitionNode;
}

/**
 * Response-key paths from the root (lists walked through) where the fetch's selection is not the
 * client's: an event answers the client as it comes only when each is null or an empty list there.
 */
export type NullPaths = readonly (readonly string[])[];

/** Where the selections may differ (`paths`, filled) below `path`; absent: they may not differ anywhere. */
interface Tolerance {
  paths: string[][];
  path: readonly string[];
}

const fragmentsOf = (document: DocumentNode): Fragments =>
  new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );

/**
 * The fields a selection set selects on `typeName`, its fragments (named or inline) spread in,
 * provided each is on that very type; undefined when one is on another type or anything carries a
 * directive (@skip and @include change what is selected per request).
 */
function fieldsOf(set: SelectionSetNode, typeName: string, fragments: Fragments, into: FieldNode[] = []): FieldNode[] | undefined {
  for (const s of set.selections) {
    if (s.directives?.length) return undefined;
    if (s.kind === Kind.FIELD) into.push(s);
    else {
      const fragment = s.kind === Kind.FRAGMENT_SPREAD ? fragments.get(s.name.value) : s;
      if (!fragment || fragment.directives?.length) return undefined;
      if (fragment.typeCondition && fragment.typeCondition.name.value !== typeName) return undefined;
      if (!fieldsOf(fragment.selectionSet, typeName, fragments, into)) return undefined;
    }
  }
  return into;
}

const argumentsOf = (f: FieldNode) => (f.arguments ?? []).map((a) => `${a.name.value}:${print(a.value)}`).join(',');

/**
 * Whether the client's selection on `api` (a type of the API schema) and the fetch's on `sub` (the
 * same type in the subgraph's schema) select the same fields under the same response names in the
 * same order, each with the same type (nullability and lists included) in both schemas, down to the
 * leaves: only object types (an interface or a union may need __typename and shaping), enums with
 * the same values. Then the subgraph's answer is, field for field, what the gateway's result shaping
 * would make of it.
 */
function sameShape(
  client: SelectionSetNode,
  clientFragments: Fragments,
  fetch: SelectionSetNode,
  fetchFragments: Fragments,
  api: GraphQLObjectType,
  sub: GraphQLObjectType,
  tolerance?: Tolerance,
): boolean {
  if (api.name !== sub.name) return false;
  const mine = fieldsOf(client, api.name, clientFragments);
  const theirs = fieldsOf(fetch, sub.name, fetchFragments);
  if (!mine || !theirs || mine.length !== theirs.length) return false;
  const keys = new Set<string>();
  for (let i = 0; i < mine.length; i++) {
    const a = mine[i];
    const b = theirs[i];
    const key = (a.alias ?? a.name).value;
    // A response name twice is merged by execution and shaping alike, but not necessarily the same way: leave it to the executor.
    if (keys.has(key)) return false;
    keys.add(key);
    if (a.name.value !== b.name.value || key !== (b.alias ?? b.name).value || argumentsOf(a) !== argumentsOf(b)) return false;
    if (a.name.value === '__typename') {
      if (a.selectionSet || b.selectionSet) return false;
      continue;
    }
    const apiField = api.getFields()[a.name.value];
    const subField = sub.getFields()[b.name.value];
    if (!apiField || !subField || String(apiField.type) !== String(subField.type)) return false;
    const apiType = getNamedType(apiField.type);
    const subType = getNamedType(subField.type);
    if (isLeafType(apiType)) {
      if (a.selectionSet || b.selectionSet || !isLeafType(subType)) return false;
      if (isEnumType(apiType)) {
        const values = (t: typeof apiType) => (isEnumType(t) ? t.getValues().map((v) => v.name) : []).join(',');
        if (!isEnumType(subType) || values(apiType) !== values(subType)) return false;
      }
      continue;
    }
    if (!a.selectionSet || !b.selectionSet) return false;
    const below = tolerance && { paths: [], path: [...tolerance.path, key] };
    if (
      isObjectType(apiType) &&
      isObjectType(subType) &&
      sameShape(a.selectionSet, clientFragments, b.selectionSet, fetchFragments, apiType, subType, below)
    ) {
      tolerance?.paths.push(...below!.paths);
      continue;
    }
    // The field itself may differ below when an event can answer it with null (nullable) or [] (a list).
    if (!tolerance || (isNonNullType(apiField.type) && !isListType(apiField.type.ofType))) return false;
    tolerance.paths.push([...tolerance.path, key]);
  }
  return true;
}

/** Whether `data` has nothing at `path` (null, or lists of nothing, on the way or at its end). */
export function nothingAt(data: unknown, path: readonly string[], i = 0): boolean {
  if (data === null || data === undefined) return true;
  if (Array.isArray(data)) return data.every((d) => nothingAt(d, path, i));
  if (i === path.length || typeof data !== 'object') return false;
  return nothingAt((data as Record<string, unknown>)[path[i]], path, i + 1);
}

/**
 * Whether the subgraph's answer to the plan's one fetch is already the client's result.
 * A plan that is a single root fetch (no entities, no rewrites) of a query, or a subscription's
 * primary fetch with nothing after it (each event is then the subgraph's answer), whose selection the
 * fetch repeats exactly (sameShape) needs neither the executor's merging nor its result shaping:
 * the gateway may run that fetch and answer with its data as it comes (when it comes without
 * errors; with errors, the executor still formats them). `subgraphSchema` is the schema the
 * subgraph executes with.
 */
export function directFetchOf(
  node: SingleFetch | undefined,
  client: ClientSelection,
  apiSchema: GraphQLSchema,
  subgraphSchema: GraphQLSchema,
): boolean {
  return shapeDifference(node, client, apiSchema, subgraphSchema, false)?.length === 0;
}

/**
 * Where a subscription's primary fetch (followed by entity fetches) selects otherwise than the
 * client: an event with nothing at each of these paths (a streamed answer's pieces after the first,
 * whose sources and model are null) is the client's result as it comes, as directFetchOf's are,
 * since the entity fetches after it find no representation and shaping leaves null as null.
 * Undefined when no event can be (the shapes differ elsewhere, or the fetch rewrites or requires).
 */
export function differsWhereNull(
  node: SingleFetch | undefined,
  client: ClientSelection,
  apiSchema: GraphQLSchema,
  subgraphSchema: GraphQLSchema,
): NullPaths | undefined {
  return shapeDifference(node, client, apiSchema, subgraphSchema, true);
}

function shapeDifference(
  node: SingleFetch | undefined,
  client: ClientSelection,
  apiSchema: GraphQLSchema,
  subgraphSchema: GraphQLSchema,
  tolerate: boolean,
): NullPaths | undefined {
  if (!node || node.kind !== 'Fetch' || node.requires) return undefined;
  if (node.operationKind !== 'query' && node.operationKind !== 'subscription') return undefined;
  if (node.inputRewrites?.length || node.outputRewrites?.length || node.contextRewrites?.length) return undefined;
  if (String(client.operation.operation) !== node.operationKind || client.operation.directives?.length) return undefined;
  const root = (schema: GraphQLSchema) => (node.operationKind === 'query' ? schema.getQueryType() : schema.getSubscriptionType());
  const api = root(apiSchema);
  const sub = root(subgraphSchema);
  if (!api || !sub) return undefined;
  let fetched: DocumentNode;
  try {
    fetched = parse(node.operation);
  } catch {
    return undefined;
  }
  const operations = fetched.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1 || operations[0].directives?.length) return undefined;
  const tolerance = tolerate ? { paths: [], path: [] } : undefined;
  const same = sameShape(
    client.operation.selectionSet,
    fragmentsOf(client.document),
    operations[0].selectionSet,
    fragmentsOf(fetched),
    api,
    sub,
    tolerance,
  );
  return same ? (tolerance?.paths ?? []) : undefined;
}
