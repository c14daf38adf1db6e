import type { SearchCore } from '../../core/search';

/** What the search module opens: its core and the data directory its commands work in. */
export interface SearchInstance extends SearchCore {
  dataDir: string;
}
