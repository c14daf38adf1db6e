import { readFileSync, statSync } from 'node:fs';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { Conflict } from '../../core/shared/errors';
import { parseManifestNow, type TrustedDocument } from './manifest';
import type { StoredDocument, TrustedApp } from './store';

/** The app name the platform's own web console's operations are listed under: reserved, never loaded or removed by an administrator. */
export const CONSOLE_APP = 'console';

/** The console's operations as the platform ships them (read-only, in memory, next to the administrators' lists). */
export interface BuiltInList {
  app: TrustedApp;
  documents: readonly StoredDocument[];
}

export const builtInRefusal = (app: string) =>
  new Conflict(`'${app}' is the platform's built-in list (its web console's operations): it is not loaded or removed by hand`, {
    code: 'APP_BUILT_IN',
  });

/**
 * The web console's manifest as `npm run build` writes it (dist/console/trusted-documents.json,
 * console/trusted-manifest.mts), checked as any manifest is (every document valid against the
 * graph's API schema). No file (the console not built) is no list, logged; a file that does not
 * check is a build that does not match its own graph, and stops the start.
 */
export function consoleList(file: string, opts: { schema: () => GraphQLSchema; log: Logger }): BuiltInList | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    opts.log.warn({ file }, "graphql: the web console is not built; its operations are not trusted (run 'npm run build')");
    return undefined;
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not JSON (${(err as Error).message}): run 'npm run build' again`, { cause: err });
  }
  let parsed: { format: TrustedApp['format']; documents: TrustedDocument[] };
  try {
    parsed = parseManifestNow(manifest, opts.schema());
  } catch (err) {
    throw new Error(`The web console's operations (${file}) do not match the graph: ${(err as Error).message}`, { cause: err });
  }
  return {
    // Loaded when it was built: the same time in every process that reads the file.
    app: { app: CONSOLE_APP, format: parsed.format, documents: parsed.documents.length, loadedAt: Math.floor(statSync(file).mtimeMs) },
    documents: parsed.documents.map((d) => ({ ...d, app: CONSOLE_APP })),
  };
}
