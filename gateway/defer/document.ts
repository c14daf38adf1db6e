import {
  getOperationAST,
  visit,
  Kind,
  type ArgumentNode,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type InlineFragmentNode,
  type OperationTypeNode,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

/**
 * The documents of an operation delivered in parts (`@defer`), pure graphql-js: the planner's (every
 * active `@defer` with a label of ours, so the plan's deferred nodes name their fragment) and each
 * part's (the fragments of that part kept, as plain fragments, every other deferred fragment left
 * out), which @apollo/gateway's executor shapes its result with.
 */

/** One active `@defer` of the operation. */
export interface DeferredFragment {
  /** Ours, unique in the operation (`d0`, `d1`, ...). */
  label: string;
  /** The client's own `label`, given back in its parts. */
  clientLabel?: string;
  /** The deferred fragment it is nested in, if any: its parts follow that one's. */
  parent?: string;
  /** Response keys from the root to the object the fragment selects on. */
  path: readonly string[];
  /** The fragment's own selections (what its parts carry). */
  selectionSet: SelectionSetNode;
}

/** One active `@stream` list, outside any deferred fragment and any other streamed list (those come whole). */
export interface StreamedList {
  clientLabel?: string;
  /** Response keys from the root to the list, its own last. */
  path: readonly string[];
  /** Items in the part that holds the list; the rest come in a part of their own. */
  initialCount: number;
}

export interface LabelledOperation {
  /** The operation alone, named fragments inlined, each active `@defer` labelled by us and unconditional. */
  document: DocumentNode;
  operationName?: string;
  /** query or mutation. */
  type: OperationTypeNode;
  /** By our label, in document order (a parent before the fragments nested in it); none when every `@defer` has `if: false`. */
  fragments: ReadonlyMap<string, DeferredFragment>;
  /** The lists delivered in two parts (`@stream` removed from the document: they are fetched whole). */
  streams: readonly StreamedList[];
}

/** A key no client selects, standing for a selection set left empty by a fragment taken out (removed from the result). */
export const PLACEHOLDER = '_platformDeferredPart';

/** Cheap test before any parse: only documents naming a directive may defer or stream. */
export const mayDefer = (query: unknown): boolean => typeof query === 'string' && /@(defer|stream)\b/.test(query);

const DEFER = 'defer';
const STREAM = 'stream';

function argument(directive: DirectiveNode, name: string): ValueNode | undefined {
  return directive.arguments?.find((a) => a.name.value === name)?.value;
}

/** `if` of a directive: its literal, its variable's value (true when unset, as the argument's default), true when absent. */
function active(directive: DirectiveNode, variables: Record<string, unknown>): boolean {
  const value = argument(directive, 'if');
  if (!value) return true;
  if (value.kind === Kind.BOOLEAN) return value.value;
  if (value.kind === Kind.VARIABLE) return variables[value.name.value] !== false;
  return true;
}

/** `initialCount` of a `@stream`: its literal or variable, 0 when absent (a negative count is 0). */
function initialCount(directive: DirectiveNode, variables: Record<string, unknown>): number {
  const value = argument(directive, 'initialCount');
  const given = value?.kind === Kind.INT ? Number(value.value) : value?.kind === Kind.VARIABLE ? variables[value.name.value] : 0;
  return typeof given === 'number' && Number.isInteger(given) && given > 0 ? given : 0;
}

const stringArg = (name: string, value: string): ArgumentNode => ({
  kind: Kind.ARGUMENT,
  name: { kind: Kind.NAME, value: name },
  value: { kind: Kind.STRING, value },
});

/**
 * The operation `operationName` names, its fragments inlined, its active `@defer`s labelled and its
 * `@stream`s taken out (undefined when it has neither directive).
 */
export function labelDefers(
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
): LabelledOperation | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  const named = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const fragments = new Map<string, DeferredFragment>();
  const streams: StreamedList[] = [];
  let seen = 0;

  const selections = (set: SelectionSetNode, path: readonly string[], parent: string | undefined, inStream = false): SelectionSetNode => ({
    ...set,
    selections: set.selections.map((s) => selection(s, path, parent, inStream)),
  });
  const selection = (s: SelectionNode, path: readonly string[], parent: string | undefined, inStream: boolean): SelectionNode => {
    if (s.kind === Kind.FIELD) {
      const stream = s.directives?.find((d) => d.name.value === STREAM);
      const at = [...path, (s.alias ?? s.name).value];
      let streamed = inStream;
      if (stream) {
        seen++;
        if (active(stream, variables) && parent === undefined && !inStream) {
          const given = argument(stream, 'label');
          streams.push({
            clientLabel: given?.kind === Kind.STRING ? given.value : undefined,
            path: at,
            initialCount: initialCount(stream, variables),
          });
          streamed = true;
        }
      }
      const field = stream ? { ...s, directives: s.directives!.filter((d) => d !== stream) } : s;
      return field.selectionSet ? { ...field, selectionSet: selections(field.selectionSet, at, parent, streamed) } : field;
    }
    // A spread becomes the inline fragment it stands for (validation has ruled out cycles and unknown names).
    const inline: InlineFragmentNode =
      s.kind === Kind.INLINE_FRAGMENT
        ? s
        : {
            kind: Kind.INLINE_FRAGMENT,
            typeCondition: named.get(s.name.value)!.typeCondition,
            directives: s.directives,
            selectionSet: named.get(s.name.value)!.selectionSet,
          };
    const defer = inline.directives?.find((d) => d.name.value === DEFER);
    if (defer) seen++;
    const others = inline.directives?.filter((d) => d !== defer) ?? [];
    if (!defer || !active(defer, variables)) {
      return { ...inline, directives: others, selectionSet: selections(inline.selectionSet, path, parent, inStream) };
    }
    const label = `d${fragments.size}`;
    const given = argument(defer, 'label');
    const fragment: DeferredFragment = {
      label,
      clientLabel: given?.kind === Kind.STRING ? given.value : undefined,
      parent,
      path,
      selectionSet: inline.selectionSet,
    };
    fragments.set(label, fragment);
    const inner = selections(inline.selectionSet, path, label, inStream);
    fragment.selectionSet = inner;
    const labelled: DirectiveNode = { kind: Kind.DIRECTIVE, name: defer.name, arguments: [stringArg('label', label)] };
    return { ...inline, directives: [...others, labelled], selectionSet: inner };
  };

  const rewritten: OperationDefinitionNode = { ...operation, selectionSet: selections(operation.selectionSet, [], undefined) };
  if (!seen) return undefined;
  return {
    document: { kind: Kind.DOCUMENT, definitions: [rewritten] },
    operationName: operation.name?.value,
    type: operation.operation,
    fragments,
    streams,
  };
}

/** The label of our `@defer` on a selection, if it has one. */
export function deferLabel(s: SelectionNode): string | undefined {
  const defer = s.directives?.find((d) => d.name.value === DEFER);
  const label = defer && argument(defer, 'label');
  return label?.kind === Kind.STRING ? label.value : undefined;
}

const placeholder: FieldNode = {
  kind: Kind.FIELD,
  alias: { kind: Kind.NAME, value: PLACEHOLDER },
  name: { kind: Kind.NAME, value: '__typename' },
};

/**
 * The labelled operation with the deferred fragments in `keep` as plain fragments and every other
 * one left out (a selection set left empty selects the placeholder). `keep` empty: the initial part.
 */
export function partDocument(labelled: LabelledOperation, keep: ReadonlySet<string>): DocumentNode {
  const selections = (set: SelectionSetNode): SelectionSetNode => {
    const kept: SelectionNode[] = [];
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) kept.push(s.selectionSet ? { ...s, selectionSet: selections(s.selectionSet) } : s);
      else if (s.kind === Kind.INLINE_FRAGMENT) {
        const label = deferLabel(s);
        if (label !== undefined && !keep.has(label)) continue;
        const directives = label === undefined ? s.directives : s.directives?.filter((d) => d.name.value !== DEFER);
        kept.push({ ...s, directives, selectionSet: selections(s.selectionSet) });
      } else kept.push(s);
    }
    return { ...set, selections: kept.length ? kept : [placeholder] };
  };
  const [operation] = labelled.document.definitions as [OperationDefinitionNode];
  return { kind: Kind.DOCUMENT, definitions: [{ ...operation, selectionSet: selections(operation.selectionSet) }] };
}

/** The fragments to keep for a part: its own and every one it is nested in. */
export function withAncestors(labelled: LabelledOperation, label: string): Set<string> {
  const keep = new Set<string>();
  for (let at: string | undefined = label; at !== undefined; at = labelled.fragments.get(at)?.parent) keep.add(at);
  return keep;
}

/** The operation with every `@defer` dropped (its fragments plain): what a client that takes one result is answered. */
export function withoutDefers(labelled: LabelledOperation): DocumentNode {
  return partDocument(labelled, new Set(labelled.fragments.keys()));
}

/** `document` without its `@stream`s: a subscription's events come whole. */
export function withoutStreams(document: DocumentNode): DocumentNode {
  return visit(document, { Directive: (d) => (d.name.value === STREAM ? null : undefined) });
}
