import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The SDL folder, from the sources (tests) or from dist/ (the built command). */
export const schemaDir = (): string => {
  const candidates = [join(__dirname, '..', '..', 'schema'), join(__dirname, '..', '..', '..', 'schema')];
  const found = candidates.find((d) => existsSync(join(d, 'supergraph.graphql')));
  if (!found) throw new Error(`schema/ not found near ${__dirname}`);
  return found;
};

export const readSchemaFile = (file: string): string => readFileSync(join(schemaDir(), file), 'utf8');
