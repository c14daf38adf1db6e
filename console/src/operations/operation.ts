/**
 * Every GraphQL operation the console sends is declared here, in `console/src/operations/`, through
 * `operation`: modules that import nothing of the browser, so that the build (console/trusted-manifest.mts)
 * can evaluate them in Node.js and write the texts, as urql sends them, into the manifest the
 * platform trusts as its built-in `console` app (docs/trusted-documents.md). An operation written
 * anywhere else would be refused by a graph in `refuse` mode (test/gateway/trusted-console.test.ts
 * fails on one).
 */
const declared: string[] = [];

/** Declares one operation (its full text, field constants interpolated) and gives the text back. */
export function operation(text: string): string {
  declared.push(text);
  return text;
}

/** The texts declared so far, in declaration order (every module of this folder imported: all of them). */
export const declaredOperations = (): readonly string[] => declared;
