import { Kind, parse, type ConstDirectiveNode, type DefinitionNode } from 'graphql';

/** Who may keep a cached answer (Apollo's CacheControlScope). */
export type CacheScope = 'PUBLIC' | 'PRIVATE';

/** One `@cacheControl` application: what it sets (`inheritMaxAge` drops `maxAge`, as Apollo does). */
export interface CacheHint {
  maxAge?: number;
  scope?: CacheScope;
  inheritMaxAge?: true;
}

/** The hints of a supergraph: by type name, and by `Type.field` (object and interface fields). */
export interface CacheHints {
  type(name: string): CacheHint;
  field(typeName: string, fieldName: string): CacheHint;
}

const NONE: CacheHint = Object.freeze({});

/** The hint one `@cacheControl` application gives; undefined when the directives hold none. */
export function hintOf(directives: readonly ConstDirectiveNode[] | undefined): CacheHint | undefined {
  const directive = directives?.find((d) => d.name.value === 'cacheControl');
  if (!directive) return undefined;
  const arg = (name: string) => directive.arguments?.find((a) => a.name.value === name)?.value;
  const maxAge = arg('maxAge');
  const scope = arg('scope');
  const inherit = arg('inheritMaxAge');
  const hint: CacheHint = {};
  if (scope?.kind === Kind.ENUM && (scope.value === 'PUBLIC' || scope.value === 'PRIVATE')) hint.scope = scope.value;
  if (inherit?.kind === Kind.BOOLEAN && inherit.value) hint.inheritMaxAge = true;
  else if (maxAge?.kind === Kind.INT) hint.maxAge = Math.max(0, parseInt(maxAge.value, 10));
  return hint;
}

/** Two hints on one element (a type extended twice): the lower maxAge, PRIVATE over PUBLIC. */
function both(a: CacheHint | undefined, b: CacheHint): CacheHint {
  if (!a) return b;
  const out: CacheHint = { ...a };
  if (b.maxAge !== undefined) out.maxAge = out.maxAge === undefined ? b.maxAge : Math.min(out.maxAge, b.maxAge);
  if (b.scope === 'PRIVATE' || !out.scope) out.scope = b.scope ?? out.scope;
  if (b.inheritMaxAge && out.maxAge === undefined) out.inheritMaxAge = true;
  return out;
}

/**
 * The `@cacheControl` hints a supergraph carries. The subgraphs declare the directive and compose it
 * with `@composeDirective`, so its applications are in the supergraph's SDL (not in the API schema
 * clients see): they are read from its definitions, once, at start.
 */
export function cacheHints(supergraphSdl: string): CacheHints {
  const types = new Map<string, CacheHint>();
  const fields = new Map<string, CacheHint>();
  const read = (d: DefinitionNode) => {
    switch (d.kind) {
      case Kind.OBJECT_TYPE_DEFINITION:
      case Kind.OBJECT_TYPE_EXTENSION:
      case Kind.INTERFACE_TYPE_DEFINITION:
      case Kind.INTERFACE_TYPE_EXTENSION:
        for (const f of d.fields ?? []) {
          const hint = hintOf(f.directives);
          const key = `${d.name.value}.${f.name.value}`;
          if (hint) fields.set(key, both(fields.get(key), hint));
        }
        break;
      case Kind.UNION_TYPE_DEFINITION:
      case Kind.UNION_TYPE_EXTENSION:
        break;
      default:
        return;
    }
    const hint = hintOf(d.directives);
    if (hint) types.set(d.name.value, both(types.get(d.name.value), hint));
  };
  parse(supergraphSdl, { noLocation: true }).definitions.forEach(read);
  return {
    type: (name) => types.get(name) ?? NONE,
    field: (typeName, fieldName) => fields.get(`${typeName}.${fieldName}`) ?? NONE,
  };
}
