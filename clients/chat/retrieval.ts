import type { Retrieval } from '../../core/chat/ports';
import { MAX_PAGE_SIZE } from '../../core/search/inputs';
import { passageFromWire, type PassageWire } from '../search/wire';
import { callOptions, httpClient } from '../shared/http';

const CHUNK_SEARCH = '/cl/search/api/v2/chunk/search';

/**
 * The search service at `baseUrl` over its REST path, the v2 chunk search: hybrid passages,
 * re-ranked, as the in-process adapter asks for them. The call carries the user's own bearer
 * token, so tenancy and roles are the search service's to apply; its refusals come back as the
 * same platform errors (clients/shared/http-errors.ts). Reads are retried on a short 429/503.
 */
export function restRetrieval(opts: { baseUrl: string; timeoutMs?: number }): Retrieval {
  const http = httpClient({ baseUrl: opts.baseUrl, timeoutMs: opts.timeoutMs ?? 30_000 });
  return {
    async passages(req, call) {
      // The service pages at most 100 and at least 1: a limit of 0 still asks (so a caller without
      // `search:read` is refused as in process) and keeps nothing.
      const pageSize = Math.max(1, Math.min(req.limit, MAX_PAGE_SIZE));
      const r = await http.request<{ result?: PassageWire[] }>('POST', CHUNK_SEARCH, {
        ...callOptions(call),
        query: { query_string: req.query, page_size: pageSize, page_no: 1 },
        json: req.fileNames ? { file_names: req.fileNames } : {},
      });
      return (r.result ?? []).slice(0, Math.max(0, req.limit)).map(passageFromWire);
    },
  };
}
