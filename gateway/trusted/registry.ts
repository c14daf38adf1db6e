import type { Logger } from 'pino';
import type { StoredDocument, TrustedStore } from './store';

/** How often a serving process asks its store whether the lists changed (a cheap read of one number). */
export const DEFAULT_TRUSTED_REFRESH_MS = 2000;

/** The trusted documents as a serving process holds them in memory. */
export interface TrustedRegistry {
  /** A document's text by the id its app sends (`documentId`, an Apollo hash), or by the SHA-256 of its text. */
  text(id: string): string | undefined;
  /** Whether a text is listed (by its SHA-256, lower-case hex). */
  listed(sha256: string): boolean;
  /** Documents held. */
  size(): number;
  /** Reads the store again when its generation moved (at once after a change made in this process). */
  refresh(): Promise<void>;
  close(): void;
}

/**
 * A copy in memory of every app's list, loaded before the process serves and kept current: every
 * `refreshMs` the store's generation is read and, when it moved, the lists are read again and
 * swapped in at once. A store that cannot be read keeps the copy it had (logged), so a database
 * outage neither opens nor closes the graph. `builtIn` documents (the web console's: built-in.ts) are
 * held next to the store's, whatever it holds, and win over a store's document of the same id.
 */
export async function trustedRegistry(
  store: TrustedStore,
  opts: { log: Logger; refreshMs?: number; builtIn?: readonly StoredDocument[] },
): Promise<TrustedRegistry> {
  let generation = -1;
  let byId = new Map<string, string>();
  let bySha = new Map<string, string>();
  let loading: Promise<void> | undefined;
  const load = async () => {
    const current = await store.generation();
    if (current === generation) return;
    const snap = await store.snapshot();
    const ids = new Map<string, string>();
    const shas = new Map<string, string>();
    for (const d of [...snap.documents, ...(opts.builtIn ?? [])]) {
      ids.set(d.id, d.body);
      shas.set(d.sha256, d.body);
    }
    byId = ids;
    bySha = shas;
    generation = snap.generation;
  };
  const refresh = () =>
    (loading ??= load()
      .catch((err: unknown) =>
        opts.log.warn({ err: (err as Error).message }, 'graphql: reading the trusted documents failed; the copy in memory stays'),
      )
      .finally(() => (loading = undefined)));
  await load();
  const timer = setInterval(() => void refresh(), opts.refreshMs ?? DEFAULT_TRUSTED_REFRESH_MS);
  timer.unref();
  const sha256Of = (id: string) => (id.startsWith('sha256:') ? id.slice(7) : id);
  return {
    text: (id) => byId.get(id) ?? bySha.get(sha256Of(id)),
    listed: (sha256) => bySha.has(sha256),
    size: () => byId.size,
    refresh,
    close: () => clearInterval(timer),
  };
}
