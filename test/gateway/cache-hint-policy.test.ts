import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kind, parse, print, type ConstDirectiveNode, type DefinitionNode } from 'graphql';
import { readSupergraph } from '../../gateway/supergraph';

/**
 * Issue 36: the `@cacheControl` hints the subgraphs compose into the supergraph are exactly the
 * ones docs/graphql.md's "Cache hints" table lists, with the same arguments, and only data the same
 * for everyone (a realm's public facts) is PUBLIC.
 */
const ROOTS = ['Query', 'Mutation', 'Subscription'];

/** `Type` or `Type.field` → the hint's arguments as written (`maxAge: 60, scope: PRIVATE`). */
function supergraphHints(sdl: string): Map<string, string> {
  const hints = new Map<string, string>();
  const args = (d: ConstDirectiveNode) => (d.arguments ?? []).map((a) => `${a.name.value}: ${print(a.value)}`).join(', ');
  const hintOf = (directives: readonly ConstDirectiveNode[] | undefined) => directives?.find((d) => d.name.value === 'cacheControl');
  for (const def of parse(sdl).definitions as DefinitionNode[]) {
    if (def.kind !== Kind.OBJECT_TYPE_DEFINITION && def.kind !== Kind.INTERFACE_TYPE_DEFINITION) continue;
    const own = hintOf(def.directives);
    if (own) hints.set(def.name.value, args(own));
    for (const f of def.fields ?? []) {
      const hint = hintOf(f.directives);
      if (hint) hints.set(`${def.name.value}.${f.name.value}`, args(hint));
    }
  }
  return hints;
}

/** The table's rows: each element its first column names (outside parentheses), and the hint column ('' for none). */
function documentedHints(markdown: string, sdl: string): Map<string, string> {
  const section = markdown.split(/^## Cache hints$/m)[1]?.split(/^## /m)[0] ?? '';
  const roots = new Map<string, string>();
  for (const def of parse(sdl).definitions)
    if (def.kind === Kind.OBJECT_TYPE_DEFINITION && ROOTS.includes(def.name.value))
      for (const f of def.fields ?? []) roots.set(f.name.value, `${def.name.value}.${f.name.value}`);
  const rows = new Map<string, string>();
  for (const line of section.split('\n').filter((l) => /^\| `/.test(l))) {
    const [what, hint] = line
      .split('|')
      .slice(1, 3)
      .map((c) => c.trim());
    const names = [...what.replace(/\([^)]*\)/g, '').matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    const value = hint.match(/^`([^`]+)`$/)?.[1] ?? '';
    for (const name of names) rows.set(roots.get(name) ?? name, value);
  }
  return rows;
}

describe("the schema's cache hints (issue 36)", () => {
  const sdl = readSupergraph();
  const hints = supergraphHints(sdl);
  const documented = documentedHints(readFileSync(join(__dirname, '../../docs/graphql.md'), 'utf8'), sdl);

  it('are composed into the supergraph', () => {
    expect(hints.get('Model')).toBe('maxAge: 60, scope: PRIVATE');
    expect(hints.get('Document')).toBe('maxAge: 30, scope: PRIVATE');
  });

  it("are the ones docs/graphql.md's table lists, with the same arguments", () => {
    const listed = Object.fromEntries([...documented].filter(([, hint]) => hint));
    expect(Object.fromEntries(hints)).toEqual(listed);
  });

  it('name no element the table says is not cacheable', () => {
    const none = [...documented].filter(([, hint]) => !hint).map(([name]) => name);
    expect(none.length).toBeGreaterThan(0);
    expect(none.filter((name) => hints.has(name))).toEqual([]);
  });

  it("are PUBLIC only for a realm's public facts, and never on a root field, a subscription or a mutation's payload", () => {
    expect([...hints].filter(([, h]) => h.includes('PUBLIC')).map(([name]) => name)).toEqual(['Realm']);
    for (const [name, hint] of hints) {
      const [type] = name.split('.');
      if (ROOTS.includes(type)) expect(`${name}: ${hint}`).toBe(`${name}: maxAge: 0`);
    }
  });
});
