import type { Readiness } from '../rest/shared/app';
import type { Opened } from './deps';

/** How long a check may take before it counts as down: a load balancer's probe must not hang. */
const CHECK_TIMEOUT_MS = 1000;
/** One answer serves every probe for this long, so a flood of /readyz never floods the database. */
const CACHE_MS = 500;

interface Stores {
  /** Each configured store's state (`postgres`, `redis`). */
  reachable(): Promise<Record<string, boolean | undefined>>;
  /** Whether the revoked-sessions list is loaded; undefined when this process follows none. */
  revocationsLoaded?(): boolean | undefined;
}

const within = <T>(p: Promise<T>, ms: number, fallback: T): Promise<T> => {
  let timer: NodeJS.Timeout;
  return Promise.race([p.catch(() => fallback), new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]).finally(
    () => clearTimeout(timer),
  );
};

/**
 * `/readyz` of a serving process: not ready while PostgreSQL or Redis (where configured) does not
 * answer, while a service is still loading (search's indexes) or the revoked-sessions list is not
 * read yet, or while it is stopping.
 */
export function readinessOf(stores: Stores, opened: readonly Opened[], draining: () => boolean): () => Promise<Readiness> {
  let last: { at: number; answer: Promise<Readiness> } | undefined;
  const check = async (): Promise<Readiness> => {
    // A check that fails or hangs: the stores, whichever they are, count as down.
    const reach = await within(stores.reachable(), CHECK_TIMEOUT_MS, { stores: false });
    const checks: Record<string, string> = {};
    for (const [name, up] of Object.entries(reach)) if (up !== undefined) checks[name] = up ? 'up' : 'down';
    for (const { module, instance } of opened) if (instance.ready) checks[module.name] = instance.ready() ? 'ready' : 'loading';
    // Only while it is not: tokens are refused with 503 until the list is read (bin/revocations.ts).
    if (stores.revocationsLoaded?.() === false) checks.revocations = 'loading';
    if (draining()) checks.process = 'draining';
    return { ready: Object.values(checks).every((c) => c === 'up' || c === 'ready'), checks };
  };
  return () => {
    const now = Date.now();
    if (!last || now - last.at > CACHE_MS) last = { at: now, answer: check() };
    return last.answer;
  };
}
