import { composeServices } from '@apollo/composition';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'graphql';
import { schemaDir, subgraphSdl, type SubgraphName } from '../subgraphs';

/** Every subgraph of the platform, in the order they are composed. */
export const SUBGRAPHS: SubgraphName[] = ['token'];

/**
 * The URL written into the supergraph for each subgraph. The gateway decides at start whether it
 * reaches a subgraph in process or at a configured URL, so these are placeholders.
 */
export const placeholderUrl = (name: string) => `http://${name}.in-process.invalid/graphql`;

/** Composes `schema/<name>.graphql` files into a supergraph SDL; throws listing every composition error. */
export function composeSupergraph(): string {
  const result = composeServices(
    SUBGRAPHS.map((name) => ({ name, url: placeholderUrl(name), typeDefs: parse(subgraphSdl(name)) })),
  );
  if (result.errors) throw new Error(`supergraph does not compose:\n${result.errors.map((e) => `  ${e.message}`).join('\n')}`);
  return `${result.supergraphSdl.trimEnd()}\n`;
}

export const supergraphPath = (): string => join(schemaDir(), 'supergraph.graphql');

export const readSupergraph = (): string => readFileSync(supergraphPath(), 'utf8');
