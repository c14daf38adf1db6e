import {
  getNamedType,
  getOperationAST,
  isAbstractType,
  isCompositeType,
  isUnionType,
  Kind,
  OperationTypeNode,
  type DirectiveNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { CacheHint, CacheHints, CacheScope } from './cache-hints';

/** An operation's cache policy: cacheable when maxAge > 0, by any cache (PUBLIC) or the caller's own (PRIVATE). */
export interface CachePolicy {
  maxAge: number;
  scope: CacheScope;
}

/** What is never cached: mutations, subscriptions, introspection, unhinted operations. */
export const NOT_CACHEABLE: CachePolicy = Object.freeze({ maxAge: 0, scope: 'PUBLIC' });

export const isCacheable = (p: CachePolicy): boolean => p.maxAge > 0;

/** A policy being narrowed: the lowest maxAge seen, PRIVATE once any part is. */
class Narrowing {
  maxAge: number | undefined;
  scope: CacheScope = 'PUBLIC';
  restrict(h: CacheHint): void {
    if (h.maxAge !== undefined && (this.maxAge === undefined || h.maxAge < this.maxAge)) this.maxAge = h.maxAge;
    if (h.scope === 'PRIVATE') this.scope = 'PRIVATE';
  }
}

/** Whether a literal `@skip(if: true)` or `@include(if: false)` drops a selection; one on a variable keeps it (the stricter policy). */
function droppedStatically(directives: readonly DirectiveNode[] | undefined): boolean {
  return (directives ?? []).some((d) => {
    const condition = d.arguments?.find((a) => a.name.value === 'if')?.value;
    if (condition?.kind !== Kind.BOOLEAN) return false;
    return (d.name.value === 'skip' && condition.value) || (d.name.value === 'include' && !condition.value);
  });
}

/**
 * Computes operations' cache policies statically from the supergraph's hints, with Apollo Server's
 * cacheControl semantics (docs/graphql-caching.md):
 * - a field returning a composite type takes its type's hint, its own hint overriding it; root
 *   fields and fields returning composite types without a maxAge get 0 (not cacheable), unless
 *   `inheritMaxAge`; scalar and enum fields without a hint add nothing (they inherit their parent's);
 * - the operation's policy is the lowest maxAge of its fields, PRIVATE if any field or type is;
 * - an interface or union: the most restrictive of its possible types (one without a maxAge takes
 *   the abstract type's own); a field selected on one counts as on each possible type;
 * - fragments expanded, aliases irrelevant, `@skip`/`@include` on a variable counted as selected;
 * - mutations, subscriptions and introspection (`__schema`, `__type`) are not cacheable; an
 *   operation of `__typename` alone has no maxAge, so neither is it.
 * Whether a field resolves to null is not known here: the policy is the one of every field the
 * operation may return, never laxer than Apollo's run-time one.
 */
export function cachePolicies(
  schema: GraphQLSchema,
  hints: CacheHints,
): (document: DocumentNode, operationName?: string | null) => CachePolicy {
  const typeHints = new Map<string, CacheHint>();
  const typeHint = (t: GraphQLCompositeType): CacheHint => {
    const known = typeHints.get(t.name);
    if (known) return known;
    const own = hints.type(t.name);
    let hint: CacheHint = own;
    if (isAbstractType(t)) {
      const narrowed = new Narrowing();
      narrowed.restrict(own);
      let open = false;
      for (const possible of schema.getPossibleTypes(t)) {
        const h = hints.type(possible.name);
        narrowed.restrict({ scope: h.scope, maxAge: h.maxAge ?? own.maxAge });
        if (h.maxAge === undefined && own.maxAge === undefined) open = true;
      }
      hint = { scope: narrowed.scope, maxAge: open ? undefined : narrowed.maxAge, ...(own.inheritMaxAge ? { inheritMaxAge: true } : {}) };
      if (hint.scope === 'PUBLIC' && !own.scope) delete hint.scope;
    }
    typeHints.set(t.name, hint);
    return hint;
  };

  /** A field's own policy (Apollo's willResolveField, statically). */
  const fieldHint = (parent: GraphQLObjectType, field: GraphQLField<unknown, unknown>, root: boolean): CacheHint => {
    const policy: CacheHint = {};
    const target = getNamedType(field.type);
    const composite = isCompositeType(target);
    let inherit = false;
    if (composite) {
      const t = typeHint(target);
      if (t.maxAge !== undefined) policy.maxAge = t.maxAge;
      if (t.scope) policy.scope = t.scope;
      inherit = Boolean(t.inheritMaxAge);
    }
    const own = hints.field(parent.name, field.name);
    if (own.inheritMaxAge && policy.maxAge === undefined) {
      inherit = true;
      if (own.scope) policy.scope = own.scope;
    } else {
      if (own.maxAge !== undefined) policy.maxAge = own.maxAge;
      if (own.scope) policy.scope = own.scope;
    }
    if (policy.maxAge === undefined && ((composite && !inherit) || root)) policy.maxAge = 0;
    return policy;
  };

  const compute = (document: DocumentNode, operationName?: string | null): CachePolicy => {
    const operation = getOperationAST(document, operationName);
    if (!operation || operation.operation !== OperationTypeNode.QUERY) return NOT_CACHEABLE;
    const fragments = new Map(
      document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
    );
    const overall = new Narrowing();
    let introspection = false;
    // A fragment adds the same whatever its parent: each one walked once (as at the root or not).
    const walked = new Set<string>();
    const walk = (set: SelectionSetNode, parent: GraphQLCompositeType, root: boolean): void => {
      for (const s of set.selections) {
        if (droppedStatically(s.directives)) continue;
        if (s.kind === Kind.INLINE_FRAGMENT) {
          const t = s.typeCondition ? schema.getType(s.typeCondition.name.value) : parent;
          if (t && isCompositeType(t)) walk(s.selectionSet, t, root);
          continue;
        }
        if (s.kind === Kind.FRAGMENT_SPREAD) {
          const fragment = fragments.get(s.name.value);
          const t = fragment && schema.getType(fragment.typeCondition.name.value);
          const key = `${root ? 'root' : 'nested'}:${s.name.value}`;
          if (!t || !isCompositeType(t) || walked.has(key)) continue;
          walked.add(key);
          walk(fragment.selectionSet, t, root);
          continue;
        }
        const name = s.name.value;
        if (name === '__typename') continue;
        if (name === '__schema' || name === '__type') {
          introspection = true;
          continue;
        }
        const objects = isAbstractType(parent) ? schema.getPossibleTypes(parent) : [parent];
        for (const object of objects) {
          const field = object.getFields()[name];
          if (field) overall.restrict(fieldHint(object, field, root));
        }
        // Unions have no fields but __typename; an interface's field type is what the selection is on.
        const declared = isUnionType(parent) ? undefined : parent.getFields()[name];
        const next = declared && getNamedType(declared.type);
        if (s.selectionSet && next && isCompositeType(next)) walk(s.selectionSet, next, false);
      }
    };
    const rootType = schema.getQueryType();
    if (!rootType) return NOT_CACHEABLE;
    walk(operation.selectionSet, rootType, true);
    if (introspection || !overall.maxAge) return NOT_CACHEABLE;
    return { maxAge: overall.maxAge, scope: overall.scope };
  };

  // Per document (Apollo Server keeps one parsed DocumentNode per query text): computed once, as plans are.
  const known = new WeakMap<DocumentNode, Map<string, CachePolicy>>();
  return (document, operationName) => {
    let byName = known.get(document);
    if (!byName) known.set(document, (byName = new Map<string, CachePolicy>()));
    const key = operationName ?? '';
    let policy = byName.get(key);
    if (!policy) byName.set(key, (policy = compute(document, operationName)));
    return policy;
  };
}
