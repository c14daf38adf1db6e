import { createModelsModule } from '../../../services/models';
import { serviceCommand } from '../../shared/in-process';
import type { Started } from '../shared/server';

/**
 * A new LM key on a running platform: `platform key create --name <name> <flags>` run against its
 * models instance, in this process. For tests that need a key, not the command (its own process
 * beside a running server is test/e2e/models/keys.test.ts's).
 */
export const newKey = async (p: Started, name: string, ...flags: string[]): Promise<string> =>
  (await serviceCommand([{ module: createModelsModule(), instance: p.instances.models }], 'key', ['create', '--name', name, ...flags]))
    .api_key as string;
