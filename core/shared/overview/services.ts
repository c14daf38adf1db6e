import { describeError } from '../telemetry/recent-errors';

/** How the process serving the graph asks one service whether it answers and is ready. */
export interface ServiceProbe {
  name: string;
  title: string;
  /** Where it is reached when it runs elsewhere (its base URL, without credentials); absent in process. */
  url?: string;
  /** Resolves when it answers its health check (its interface's `health()`, or its process's /healthz). */
  health(this: void, signal: AbortSignal): Promise<void>;
  /** What its /readyz says: ready, or why not (the checks that are not fine). */
  readiness(this: void, signal: AbortSignal): Promise<{ ready: boolean; reason?: string }>;
}

export interface ServiceStatus {
  name: string;
  title: string;
  location: 'in_process' | 'remote';
  url?: string;
  healthy: boolean;
  /** `ok`, or why its health check failed. */
  health: string;
  ready: boolean;
  /** Why it is not ready; absent when it is. */
  reason?: string;
}

/** Why a check that did not answer in time failed. */
export const noAnswer = (ms: number) => `no answer within ${ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`}`;

/** Runs `check` with a signal that aborts after `ms`; a check that fails or hangs gives its reason instead. */
async function within<T>(check: (signal: AbortSignal) => Promise<T>, ms: number): Promise<{ ok: T } | { failed: string }> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ failed: string }>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(noAnswer(ms)));
      resolve({ failed: noAnswer(ms) });
    }, ms);
  });
  try {
    return await Promise.race([
      check(controller.signal).then(
        (ok) => ({ ok }),
        (err: unknown) => ({ failed: controller.signal.aborted ? noAnswer(ms) : describeError(err) }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Checks every service at once, each check bounded by `timeoutMs`: a stalled service is reported, never waited for. */
export async function checkServices(probes: readonly ServiceProbe[], timeoutMs: number): Promise<ServiceStatus[]> {
  return Promise.all(
    probes.map(async (p): Promise<ServiceStatus> => {
      const [health, ready] = await Promise.all([within(p.health, timeoutMs), within(p.readiness, timeoutMs)]);
      const readiness = 'ok' in ready ? ready.ok : { ready: false, reason: ready.failed };
      return {
        name: p.name,
        title: p.title,
        location: p.url === undefined ? 'in_process' : 'remote',
        ...(p.url === undefined ? {} : { url: p.url }),
        healthy: 'ok' in health,
        health: 'ok' in health ? 'ok' : health.failed,
        ready: readiness.ready,
        ...(readiness.ready ? {} : { reason: readiness.reason ?? 'not ready' }),
      };
    }),
  );
}
