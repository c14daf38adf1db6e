import { InvalidKey, MissingKey } from '../errors';
import { parseApiKeyHeader } from './key-options';
import type { ApiKeys } from './keys';
import type { KeyCaller } from '../service';

/**
 * The caller an LM key establishes (the module's declared credential: `api-key: <key>[/<options>]`):
 * 401 when missing, unknown or revoked; 400 for a bad option. The key is looked up first, so a
 * stranger learns nothing about options from a 400.
 */
export const keyCallerOf =
  (keys: Pick<ApiKeys, 'verify'>) =>
  async (header: string | undefined): Promise<KeyCaller> => {
    if (!header?.trim()) throw new MissingKey();
    const found = await keys.verify(header.split('/', 1)[0].trim());
    if (!found) throw new InvalidKey();
    return { key: found, options: parseApiKeyHeader(header).options };
  };
