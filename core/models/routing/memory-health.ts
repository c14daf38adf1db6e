import type { CooldownPolicy, DeploymentHealth, DeploymentRef, DeploymentState } from './health';

/** A vendor's `Retry-After` cools a deployment down for an hour at most (the catalog's `cooldown.seconds` says so). */
export const LONGEST_COOLDOWN_MS = 3600 * 1000;

/** The weight of the newest latency in the mean: a deployment turning slow shows within a few calls. */
const LATENCY_WEIGHT = 0.3;

interface Entry {
  /** Instants of failures, oldest first, never more than the policy's `failures` nor older than its window. */
  failures: number[];
  windowMs: number;
  inFlight: number;
  latencyMs: number | undefined;
  lastFailure: { at: number; what: string } | null;
  /** The latest cooldown end known, kept after it passed: a late echo of it is not a new cooldown. */
  cooledUntil: number;
}

/**
 * Told of a cooldown this replica started (`started`), or one it made longer (a later `Retry-After`):
 * the Redis adapter shares both, the metrics count the first.
 */
export type CooldownListener = (d: DeploymentRef, until: number, started: boolean) => void;

export interface MemoryHealthOptions {
  /** Not called for cooldowns learned from another replica (`adopt`); its exceptions never reach the router. */
  onCooldown?: CooldownListener;
}

/** The in-process health, plus the door through which a shared adapter brings cooldowns started elsewhere. */
export interface LocalDeploymentHealth extends DeploymentHealth {
  /** A cooldown another replica started: kept until `until` (a later end already known wins). Not reported to `onCooldown`. */
  adopt(d: DeploymentRef, until: number): void;
}

/**
 * Deployment health in this process alone (issue 35): the default with one replica, and the local
 * half of the Redis adapter. A deployment that failed `failures` times within `windowSeconds`
 * cools down for `seconds` (or until a vendor's longer `Retry-After`, an hour at most) and is then
 * tried again with its count started afresh. Everything is a map lookup: the router reads it on
 * every call. Deployments are the catalog's, so the maps stay as small as the catalog.
 */
export function memoryDeploymentHealth(options: MemoryHealthOptions = {}): LocalDeploymentHealth {
  const entries = new Map<string, Map<string, Entry>>();
  const cooldowns = new Map<string, Map<string, number>>();
  const none: ReadonlyMap<string, number> = new Map();

  const entry = (d: DeploymentRef): Entry => {
    let byDeployment = entries.get(d.model);
    if (!byDeployment) entries.set(d.model, (byDeployment = new Map<string, Entry>()));
    let e = byDeployment.get(d.deployment);
    if (!e)
      byDeployment.set(
        d.deployment,
        (e = { failures: [], windowMs: 0, inFlight: 0, latencyMs: undefined, lastFailure: null, cooledUntil: 0 }),
      );
    return e;
  };
  const peek = (d: DeploymentRef) => entries.get(d.model)?.get(d.deployment);

  /** The model's cooldowns still running at `now` (ended ones are forgotten on the way). */
  const coolingAt = (model: string, now: number): ReadonlyMap<string, number> => {
    const byDeployment = cooldowns.get(model);
    if (!byDeployment) return none;
    for (const [deployment, until] of byDeployment) if (until <= now) byDeployment.delete(deployment);
    if (byDeployment.size === 0) {
      cooldowns.delete(model);
      return none;
    }
    return byDeployment;
  };

  /** Sets a cooldown (the callers made sure it ends later than any running). */
  const cool = (d: DeploymentRef, until: number) => {
    let byDeployment = cooldowns.get(d.model);
    if (!byDeployment) cooldowns.set(d.model, (byDeployment = new Map<string, number>()));
    byDeployment.set(d.deployment, until);
  };

  const health: LocalDeploymentHealth = {
    cooling: coolingAt,

    failed(d, policy: CooldownPolicy, now, what, until) {
      const e = entry(d);
      e.lastFailure = { at: now, what };
      e.windowMs = policy.windowSeconds * 1000;
      const current = coolingAt(d.model, now).get(d.deployment);
      let end: number | undefined;
      if (until !== undefined && until > now) {
        end = Math.min(Math.max(until, now + policy.seconds * 1000), now + LONGEST_COOLDOWN_MS);
      } else if (current === undefined) {
        // Failures of calls begun before a cooldown, ending during it, do not count towards the next one.
        const since = now - e.windowMs;
        e.failures = e.failures.filter((t) => t > since);
        e.failures.push(now);
        if (e.failures.length > policy.failures) e.failures.splice(0, e.failures.length - policy.failures);
        if (e.failures.length >= policy.failures) end = now + policy.seconds * 1000;
      }
      if (end === undefined || (current !== undefined && current >= end)) return;
      e.failures = [];
      e.cooledUntil = end;
      cool(d, end);
      try {
        options.onCooldown?.(d, end, current === undefined);
      } catch {
        // A listener's fault must not reach the router's call.
      }
    },

    succeeded(d, latencyMs) {
      const e = entry(d);
      const ms = Math.max(0, latencyMs);
      e.latencyMs = e.latencyMs === undefined ? ms : e.latencyMs + LATENCY_WEIGHT * (ms - e.latencyMs);
    },

    started(d) {
      const e = entry(d);
      e.inFlight++;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        e.inFlight--;
      };
    },

    inFlight: (d) => peek(d)?.inFlight ?? 0,
    latencyMs: (d) => peek(d)?.latencyMs,

    states(deployments, now): DeploymentState[] {
      return deployments.map((d) => {
        const e = peek(d);
        const until = coolingAt(d.model, now).get(d.deployment);
        const since = now - (e?.windowMs ?? 0);
        return {
          model: d.model,
          deployment: d.deployment,
          state: until === undefined ? 'healthy' : 'cooling',
          coolingUntil: until ?? null,
          recentFailures: e ? e.failures.filter((t) => t > since).length : 0,
          inFlight: e?.inFlight ?? 0,
          latencyMs: e?.latencyMs === undefined ? null : Math.round(e.latencyMs * 10) / 10,
          lastFailure: e?.lastFailure ? { ...e.lastFailure } : null,
        };
      });
    },

    adopt(d, until) {
      const e = entry(d);
      if (until <= e.cooledUntil) return;
      e.cooledUntil = until;
      e.failures = [];
      cool(d, until);
    },

    async close() {
      entries.clear();
      cooldowns.clear();
    },
  };
  return health;
}
