import type { Routing } from '../catalog/catalog';

/**
 * What the router knows of each deployment's health (issue 35): cooldowns, calls in flight and
 * latency. The router (core/models/routing) reads it on every call, so reads are local and never
 * wait on I/O; what must be shared (a cooldown another replica started) arrives in the background
 * (Redis when set, core/models/redis/deployment-health.ts), and each replica keeps its own
 * in-flight counts and latencies, which describe its own traffic.
 */

/** A deployment of a catalog model. */
export interface DeploymentRef {
  model: string;
  deployment: string;
}

export type CooldownPolicy = Routing['cooldown'];

/** Why an attempt failed, as the router saw it. */
export type FailureKind = 'status' | 'timeout' | 'connection' | 'broken-stream';

/** One deployment's state, as the admin API, the graph and the metrics show it. */
export interface DeploymentState extends DeploymentRef {
  state: 'healthy' | 'cooling';
  /** When its cooldown ends (epoch ms); null when healthy. */
  coolingUntil: number | null;
  /** Failures counted in the current window (this replica's view). */
  recentFailures: number;
  /** Calls this replica has in flight to it. */
  inFlight: number;
  /** Its recent latency to the first byte (an exponentially weighted mean, ms); null before its first answer. */
  latencyMs: number | null;
  /** The last failure seen here: when, and what (a status, `timeout`, ...); null when none. */
  lastFailure: { at: number; what: string } | null;
}

export interface DeploymentHealth {
  /** The deployments of `model` in cooldown at `now`, each with when it ends. No I/O. */
  cooling(model: string, now: number): ReadonlyMap<string, number>;
  /**
   * A failed attempt. The deployment goes into cooldown when it failed `policy.failures` times
   * within `policy.windowSeconds`, or at once until `until` (a vendor's long `Retry-After`); the
   * cooldown is shared with every replica when the adapter shares it. Never throws, never waits.
   */
  failed(d: DeploymentRef, policy: CooldownPolicy, now: number, what: string, until?: number): void;
  /** An answered attempt and its latency to the first byte. */
  succeeded(d: DeploymentRef, latencyMs: number): void;
  /** A call begins: counted in flight until the returned function is called (once). */
  started(d: DeploymentRef): () => void;
  inFlight(d: DeploymentRef): number;
  /** Recent latency (ms), undefined before its first answer. */
  latencyMs(d: DeploymentRef): number | undefined;
  /** The state of each deployment named (the catalog's, so one never called shows as healthy). */
  states(deployments: readonly DeploymentRef[], now: number): DeploymentState[];
  close(): Promise<void>;
}
