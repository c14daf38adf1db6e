import { composeServices } from '@apollo/composition';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'graphql';
import { schemaDir } from '../edge/graphql/sdl';

/** A subgraph to compose: its name and SDL. */
export interface SubgraphSource {
  name: string;
  sdl: string;
}

/**
 * The URL written into the supergraph for each subgraph. The gateway decides at start whether it
 * reaches a subgraph in process or at a configured URL, so these are placeholders.
 */
export const placeholderUrl = (name: string) => `http://${name}.in-process.invalid/graphql`;

/** Composes subgraphs (in the order given) into a supergraph SDL; throws listing every composition error. */
export function composeSupergraph(subgraphs: readonly SubgraphSource[]): string {
  const result = composeServices(subgraphs.map(({ name, sdl }) => ({ name, url: placeholderUrl(name), typeDefs: parse(sdl) })));
  if (result.errors) throw new Error(`supergraph does not compose:\n${result.errors.map((e) => `  ${e.message}`).join('\n')}`);
  return `${result.supergraphSdl.trimEnd()}\n`;
}

export const supergraphPath = (): string => join(schemaDir(), 'supergraph.graphql');

export const readSupergraph = (): string => readFileSync(supergraphPath(), 'utf8');
