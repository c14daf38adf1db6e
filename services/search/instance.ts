import type { SearchCore } from '../../core/search';
import type { SearchAdminApi } from '../../core/search/admin-api';

/** What the search module opens: its core, its part of the admin API, and the data directory its commands work in. */
export interface SearchInstance extends SearchCore {
  dataDir: string;
  /** SEARCH_MAX_UPLOAD_BYTES: the largest file the REST upload and the subgraph's `uploadDocument` take. */
  maxUploadBytes: number;
  adminApi: SearchAdminApi;
}
