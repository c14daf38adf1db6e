import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'graphql';
import { readSchemaFile, schemaDir } from '../edge/graphql/sdl';

/** A subgraph to compose: its name and SDL. */
export interface SubgraphSource {
  name: string;
  sdl: string;
}

/**
 * The graph's own subgraph (schema/platform/, subgraphs/platform/): what the platform knows about
 * itself, served in process by whichever process runs the gateway. It is no service: it has no
 * REST face, is never served alone, and has no SUBGRAPH_<NAME>_URL.
 */
export const PLATFORM_SUBGRAPH = 'platform';

/** The subgraphs the graph composes: the services' (in the registry's order), then the platform's own. */
export const graphSources = (services: readonly SubgraphSource[]): SubgraphSource[] => [
  ...services,
  { name: PLATFORM_SUBGRAPH, sdl: readSchemaFile('platform/platform.graphql') },
];

/**
 * The URL written into the supergraph for each subgraph. The gateway decides at start whether it
 * reaches a subgraph in process or at a configured URL, so these are placeholders.
 */
export const placeholderUrl = (name: string) => `http://${name}.in-process.invalid/graphql`;

/** Loaded when a composition is needed: a start whose supergraph is the committed one does without it. */
const composition = () => require('@apollo/composition') as typeof import('@apollo/composition');

/** The first line of a composed supergraph: what it was composed from (and by which composition). */
const HEADER = '# Composed by `platform compose` from subgraphs with SHA-256 ';

function inputsHash(subgraphs: readonly SubgraphSource[]): string {
  const version = (require('@apollo/composition/package.json') as { version: string }).version;
  return createHash('sha256')
    .update(JSON.stringify([version, subgraphs.map((s) => [s.name, s.sdl])]))
    .digest('hex');
}

/**
 * Composes subgraphs (in the order given) into a supergraph SDL, headed by a comment naming its
 * inputs' hash; throws listing every composition error.
 */
export function composeSupergraph(subgraphs: readonly SubgraphSource[]): string {
  const result = composition().composeServices(
    subgraphs.map(({ name, sdl }) => ({ name, url: placeholderUrl(name), typeDefs: parse(sdl) })),
  );
  if (result.errors) throw new Error(`supergraph does not compose:\n${result.errors.map((e) => `  ${e.message}`).join('\n')}`);
  return `${HEADER}${inputsHash(subgraphs)}\n${result.supergraphSdl.trimEnd()}\n`;
}

/**
 * The supergraph of these subgraphs: the committed `schema/supergraph.graphql` when its header
 * says it was composed from exactly them by this version of composition (a start then skips some
 * 300 ms of composing), composed now otherwise (a changed SDL before `npm run compose`, other
 * modules in tests).
 */
export function supergraphOf(subgraphs: readonly SubgraphSource[]): string {
  let committed: string | undefined;
  try {
    committed = readSupergraph();
  } catch {
    committed = undefined;
  }
  return committed?.startsWith(`${HEADER}${inputsHash(subgraphs)}\n`) ? committed : composeSupergraph(subgraphs);
}

export const supergraphPath = (): string => join(schemaDir(), 'supergraph.graphql');

export const readSupergraph = (): string => readFileSync(supergraphPath(), 'utf8');
