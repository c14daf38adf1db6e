import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequest, stringifyDocument } from '@urql/core';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { runnerImport, type Plugin } from 'vite';

/** Where the build writes the console's operations, next to its bundle (not served: gateway/console.ts serves the page and assets/). */
export const TRUSTED_MANIFEST_FILE = 'trusted-documents.json';

/**
 * The console's operations as the platform trusts them (docs/trusted-documents.md): every module of
 * `src/operations/` evaluated in Node.js (Vite's module runner), each text declared there turned
 * into the text urql sends for it (parsed and printed again: `stringifyDocument`, as its fetch and
 * subscription exchanges do) and written as an Apollo persisted query list. A nameless operation
 * or two with one name fail the build.
 */
export async function consoleManifest(operationsIndex: string) {
  const { module } = await runnerImport<{ declaredOperations(): readonly string[] }>(operationsIndex, {
    configFile: false,
    logLevel: 'silent',
  });
  const names = new Set<string>();
  const operations = module.declaredOperations().map((text) => {
    const body = stringifyDocument(createRequest(text, {}).query);
    const ops = parse(body).definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    const name = ops[0]?.name?.value;
    if (ops.length !== 1 || !name) throw new Error(`A console operation must be one named operation: ${text.slice(0, 80)}`);
    if (names.has(name)) throw new Error(`Two console operations are named ${name}`);
    names.add(name);
    return { id: createHash('sha256').update(body, 'utf8').digest('hex'), body, name, type: ops[0].operation };
  });
  return { format: 'apollo-persisted-query-manifest' as const, version: 1 as const, operations };
}

/** The build step: writes `trusted-documents.json` into the console's output folder once the bundle is written. */
export function trustedManifest(opts: { operationsIndex: string; outDir: string }): Plugin {
  return {
    name: 'console-trusted-manifest',
    apply: 'build',
    async writeBundle() {
      const manifest = await consoleManifest(opts.operationsIndex);
      await writeFile(join(opts.outDir, TRUSTED_MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    },
  };
}
