import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
  type GraphQLArgument,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import { Kind, parse, type DefinitionNode } from 'graphql';
import pino from 'pino';
import { apolloPlanner } from '../../gateway/apollo-planner';
import { readSupergraph } from '../../gateway/supergraph';
import { readSchemaFile } from '../../edge/graphql/sdl';

/**
 * Issue 36: every element of the API schema the gateway serves (types, fields, arguments, enum
 * values, input fields) carries a description an explorer can show, and none is a placeholder.
 * GraphQL's own scalars and introspection types, and federation's (`_Service`, `_Entity`,
 * `join__*`, `link__*`), are not the graph's to describe.
 */
const apiSchema = (): GraphQLSchema => apolloPlanner(readSupergraph(), pino({ level: 'silent' })).apiSchema;

const FEDERATION = /^(_Service|_Entity|_Any|_FieldSet|FieldSet|join__|link__)/;

interface Element {
  /** `Type`, `Type.field`, `Type.field(arg)`, `Enum.VALUE`, `Input.field`. */
  path: string;
  description: string | null | undefined;
}

/** Every element of the graph's own types, with its description. */
function elements(schema: GraphQLSchema): Element[] {
  const own = (t: GraphQLNamedType) => !isIntrospectionType(t) && !isSpecifiedScalarType(t) && !FEDERATION.test(t.name);
  const out: Element[] = [];
  const args = (at: string, list: readonly GraphQLArgument[]) => {
    for (const a of list) out.push({ path: `${at}(${a.name})`, description: a.description });
  };
  for (const type of Object.values(schema.getTypeMap()).filter(own)) {
    out.push({ path: type.name, description: type.description });
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const f of Object.values(type.getFields())) {
        if (f.name.startsWith('_')) continue;
        out.push({ path: `${type.name}.${f.name}`, description: f.description });
        args(`${type.name}.${f.name}`, f.args);
      }
    } else if (isInputObjectType(type)) {
      for (const f of Object.values(type.getFields())) out.push({ path: `${type.name}.${f.name}`, description: f.description });
    } else if (isEnumType(type)) {
      for (const v of type.getValues()) out.push({ path: `${type.name}.${v.name}`, description: v.description });
    }
  }
  for (const d of schema.getDirectives().filter((d) => !d.name.startsWith('join__') && !d.name.startsWith('link__'))) {
    if (['include', 'skip', 'deprecated', 'specifiedBy', 'oneOf', 'defer', 'stream'].includes(d.name)) continue;
    out.push({ path: `@${d.name}`, description: d.description });
    args(`@${d.name}`, d.args);
  }
  return out;
}

/** The last part of an element's path: the name a placeholder would repeat. */
const nameOf = (path: string) => (path.match(/([A-Za-z_][A-Za-z0-9_]*)\)?$/)?.[1] ?? path).toLowerCase();

/** Why a description is a placeholder, or undefined when it reads as one. */
function placeholder(path: string, description: string): string | undefined {
  const text = description.trim();
  const words = text.split(/\s+/).filter(Boolean);
  // The name again, an article or a possessive aside: "The tenant id." for `tenantId`.
  const bare = text
    .replace(/[`."]/g, '')
    .replace(/'s\b/g, '')
    .replace(/\b(the|its|a|an)\b/gi, '')
    .replace(/\s+/g, '')
    .toLowerCase();
  if (bare === nameOf(path)) return 'repeats the name';
  if (/^(todo|tbd|fixme|xxx|description|n\/a|-|\.\.\.)\b/i.test(text)) return 'a placeholder word';
  if (words.length < 2) return `one word ("${text}")`;
  return undefined;
}

describe('the API schema is documented (issue 36)', () => {
  const all = elements(apiSchema());

  it('covers the graph: types, fields, arguments, enum values and input fields', () => {
    const paths = all.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining(['Query', 'Model', 'Model.price', 'Query.search(mode)', 'SearchMode.HYBRID', 'AskInput.query']),
    );
    expect(paths.some((p) => FEDERATION.test(p) || p.startsWith('__'))).toBe(false);
    expect(all.length).toBeGreaterThan(600);
  });

  it('describes every element', () => {
    expect(all.filter((e) => !e.description?.trim()).map((e) => e.path)).toEqual([]);
  });

  it('has no placeholder description (the name again, a single word, TODO)', () => {
    const bad = all.flatMap((e) => {
      const why = e.description ? placeholder(e.path, e.description) : undefined;
      return why ? [`${e.path}: ${why}`] : [];
    });
    expect(bad).toEqual([]);
  });

  it('the placeholder check catches what it names', () => {
    expect(placeholder('Model.id', 'id')).toBe('repeats the name');
    expect(placeholder('Query.search(pageNo)', 'Page no.')).toBe('repeats the name');
    expect(placeholder('AdminDocuments.tenantId', 'The tenant id.')).toBe('repeats the name');
    expect(placeholder('AdminRealmKeys.kid', 'Its kid')).toBe('repeats the name');
    expect(placeholder('Model.status', 'TODO describe')).toBe('a placeholder word');
    expect(placeholder('Price', 'Prices')).toMatch(/one word/);
    expect(placeholder('Price', 'US dollars per million tokens.')).toBeUndefined();
  });
});

/** The subgraphs' own SDL files: what a subgraph served alone shows an explorer. */
const SDL_FILES = [
  'chat/chat.graphql',
  'models/models.graphql',
  'models/admin.graphql',
  'platform/platform.graphql',
  'search/search.graphql',
  'token/token.graphql',
];

/**
 * Every element an SDL file defines, with its description. An entity stub (`@key(..., resolvable:
 * false)`: chat's `Document` and `Model`) is left out: its type and fields are its owner's, and
 * composition takes the owner's descriptions.
 */
function sdlElements(sdl: string): Element[] {
  const out: Element[] = [];
  const stub = (d: DefinitionNode) =>
    'directives' in d &&
    (d.directives ?? []).some((x) => x.name.value === 'key' && x.arguments?.some((a) => a.name.value === 'resolvable'));
  for (const d of parse(sdl).definitions) {
    if (!('name' in d) || !d.name || stub(d)) continue;
    const type = d.name.value;
    const extension = d.kind === Kind.OBJECT_TYPE_EXTENSION;
    if (!extension && 'description' in d)
      out.push({ path: d.kind === Kind.DIRECTIVE_DEFINITION ? `@${type}` : type, description: d.description?.value });
    if ('fields' in d)
      for (const f of d.fields ?? []) {
        out.push({ path: `${type}.${f.name.value}`, description: f.description?.value });
        if ('arguments' in f)
          for (const a of f.arguments ?? [])
            out.push({ path: `${type}.${f.name.value}(${a.name.value})`, description: a.description?.value });
      }
    if ('values' in d) for (const v of d.values ?? []) out.push({ path: `${type}.${v.name.value}`, description: v.description?.value });
    if (d.kind === Kind.DIRECTIVE_DEFINITION)
      for (const a of d.arguments ?? []) out.push({ path: `@${type}(${a.name.value})`, description: a.description?.value });
  }
  return out;
}

describe.each(SDL_FILES)('the subgraph SDL schema/%s is documented (a subgraph served alone)', (file) => {
  const all = sdlElements(readSchemaFile(file));

  it('describes every element it defines', () => {
    expect(all.length).toBeGreaterThan(20);
    expect(all.filter((e) => !e.description?.trim()).map((e) => e.path)).toEqual([]);
  });
});
