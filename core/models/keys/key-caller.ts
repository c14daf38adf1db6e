import { InvalidKey, MissingKey } from '../errors';
import { parseApiKeyHeader } from './key-options';
import type { ApiKeys } from './keys';
import type { RecordRefusal } from './refusals';
import type { KeyCaller } from '../service';
import { parseRouteHeader, ROUTE_HEADER } from '../routing/route-header';

/** Where a key was presented from (the caller's address, for a refusal's audit event). */
export interface KeyCallMeta {
  address?: string;
  /** The request's other headers: its `x-platform-route` routing override (core/models/routing/route-header.ts). */
  header?(name: string): string | undefined;
}

/**
 * The caller an LM key establishes (the module's declared credential: `api-key: <key>[/<options>]`):
 * 401 when missing, unknown, revoked or expired (one error for all, so a stranger learns nothing);
 * 400 for a bad option. The key is looked up first, so a stranger learns nothing about options from
 * a 400; a bad `x-platform-route` header is a 400 `invalid_route_config` after the key. A refused key is told to `refused` (an audit event, throttled there).
 */
export const keyCallerOf =
  (keys: Pick<ApiKeys, 'verify'>, refused?: RecordRefusal) =>
  async (header: string | undefined, meta: KeyCallMeta = {}): Promise<KeyCaller> => {
    if (!header?.trim()) throw new MissingKey();
    const text = header.split('/', 1)[0].trim();
    const found = await keys.verify(text);
    if (!found) {
      refused?.(text, meta.address);
      throw new InvalidKey();
    }
    const options = parseApiKeyHeader(header).options;
    const route = parseRouteHeader(meta.header?.(ROUTE_HEADER));
    return { key: found, options, ...(route && { route }) };
  };
