import type { Retrieval } from '../core/chat/ports';

/** The search service at `baseUrl` over its REST paths (v2 chunk search), as the user. PLACEHOLDER: helper fills in. */
export function restRetrieval(_opts: { baseUrl: string; timeoutMs?: number }): Retrieval {
  return { passages: async () => { throw new Error('restRetrieval: not built yet'); } };
}
