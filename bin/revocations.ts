import type { Logger } from 'pino';
import { followRevocations, type RevocationFeed, type RevocationFollower } from '../core/shared/auth/revocation-feed';
import type { RevocationList } from '../core/shared/auth/revocations';
import type { RevocationReader, ServiceInstance, ServiceModule, SharedDeps } from '../services/shared/module';

type Opened = { module: ServiceModule; instance: ServiceInstance };

/** Between two attempts at the first read of a feed that does not answer yet (a token service starting elsewhere). */
const FIRST_READ_RETRY_MS = 1000;

/** Where a process reads the revoked-sessions feed from, and what it opened to read it. */
async function feedFor(
  deps: SharedDeps,
  modules: readonly ServiceModule[],
  opened: readonly Opened[],
): Promise<{ feed: RevocationFeed; reader?: RevocationReader; where: string } | undefined> {
  // A service of this process keeps it (the token service): its store.
  const own = opened.find((o) => o.instance.revocations);
  if (own) return { feed: own.instance.revocations!, where: `the ${own.module.name} service's store` };
  // Else the service that keeps it, running elsewhere: its store if reachable from here, else its endpoint.
  const keeper = modules.find((m) => m.revocationReader !== undefined);
  if (!keeper) return undefined;
  const reader = await keeper.revocationReader!(deps);
  return { feed: reader, reader, where: `the ${keeper.name} service running elsewhere` };
}

/**
 * Loads the revoked-sessions list into `list` and keeps it current in the background. Resolves
 * once the first read is done: the list is then current, and a process must not serve before (it
 * would accept tokens of sessions already ended). When that read fails (a token service that is
 * not up yet, on another host), it resolves anyway and tries again every second: meanwhile
 * `loaded()` is false and the verifier refuses every token with 503 (core/shared/auth/verifier.ts).
 */
export async function followRevocationFeed(
  deps: SharedDeps,
  list: RevocationList,
  modules: readonly ServiceModule[],
  opened: readonly Opened[],
  log: Logger,
): Promise<{ follower: RevocationFollower; close(): Promise<void> } | undefined> {
  const found = await feedFor(deps, modules, opened);
  if (!found) return undefined;
  const follower = followRevocations(found.feed, list, {
    onError: (err) =>
      log.warn(
        { err: err.message },
        `revocations: reading the revoked-sessions list from ${found.where} failed; the last list read is kept (none yet: tokens are refused with 503), retrying`,
      ),
    onRecovery: () => log.info(`revocations: the revoked-sessions list from ${found.where} is read again`),
  });
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const attempt = async (): Promise<void> => {
    try {
      await follower.start();
    } catch {
      // Told by onError (once per outage); tried again until the list is read.
      if (!closed) retry = setTimeout(() => void attempt(), FIRST_READ_RETRY_MS);
    }
  };
  await attempt();
  return {
    follower,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      follower.close();
      await found.reader?.close?.();
    },
  };
}
