import type { Logger } from 'pino';
import type { z } from 'zod';
import type { AuditTrail } from '../../core/shared/admin/audit';
import type { Credentials } from '../../core/shared/auth/credentials';
import type { RevocationFeed } from '../../core/shared/auth/revocation-feed';
import type { RevocationList } from '../../core/shared/auth/revocations';
import type { KeySource, TokenVerifier } from '../../core/shared/auth/verifier';
import type { Clock } from '../../core/shared/clock';
import type { Config } from '../../core/shared/config';
import type { FairPool, FairPoolOptions } from '../../core/shared/fair-pool';
import type { PgPool } from '../../core/shared/postgres';
import type { Redis } from '../../core/shared/redis';
import type { Metrics } from '../../core/shared/telemetry/metrics';
import type { AdminConnection } from '../../clients/admin/connection';
import type { SubgraphEdge } from '../../edge/graphql/calls';
import type { AdminFace, RestService } from '../../rest/shared/routes';

export type { AdminFace };

/** What every service is built from: the platform's configuration and shared dependencies. */
export interface SharedDeps<C = Record<string, unknown>> {
  /** The platform's settings plus this service's own (its `config` schema), validated at start. */
  config: Config & C;
  clock: Clock;
  log: Logger;
  /** Where the realms' public keys come from: a service of this process, or the issuer's JWKS. */
  keys: KeySource;
  /** Verifies bearer access tokens with `keys`, TOKEN_CLOCK_SKEW_SECONDS and `revocations`. */
  verifier: TokenVerifier;
  /**
   * The sessions ended before their access tokens expire, in memory, kept current in the
   * background from the token service's feed (bin/revocations.ts); a serving process loads it
   * before it listens.
   */
  revocations: RevocationList;
  /** After sessions were ended in this process: resolves once `revocations` holds them. */
  revoked(this: void): Promise<void>;
  /** RFC 9068 audiences of every registered service. */
  audiences: readonly string[];
  /**
   * Another service opened in this process, when the one asking declared it in `uses` (it is then
   * opened first); undefined when that service runs elsewhere (reach it with its REST client).
   */
  peer<I extends ServiceInstance>(name: string): I | undefined;
  /**
   * A fair pool for slow work (password hashes), one per name for the whole machine: with several
   * workers the primary process hands out the turns, so its bounds hold across them.
   */
  fairPool(this: void, name: string, opts: FairPoolOptions): FairPool;
  /**
   * PostgreSQL (DATABASE_URL): one pool per process, shared by its services, whose migrations have
   * run; absent without DATABASE_URL (each service keeps its SQLite file in PLATFORM_DATA_DIR).
   */
  postgres?: PgPool;
  /**
   * Redis (REDIS_URL): one client per serving process, connected before services open; commands
   * time out and fail at once while it is down (core/shared/redis). Absent without REDIS_URL and
   * in the CLI (`admin`).
   */
  redis?: Redis;
  /** Where the service counts and times what operators watch (METRICS_PORT); records nothing when metrics are off. */
  metrics: Metrics;
  /**
   * The audit trail (core/shared/admin/audit.ts): administrative changes and security events, kept
   * in the data directory's `audit.db` or PostgreSQL's `audit_events` (shared by replicas), and logged.
   */
  audit: AuditTrail;
}

export interface ServiceInstance {
  close(): void | Promise<void>;
  /** A service that holds signing keys offers them to verifiers in the same process. */
  keySource?: KeySource;
  /** A service that keeps the revoked-sessions feed offers it to the same process's list. */
  revocations?: RevocationFeed;
  /** False while it cannot serve yet (search: its in-memory indexes are still loading); /readyz says so. */
  ready?(): boolean;
  /** A service whose clients register browser origins (the token service): every origin registered, for CORS. */
  webOrigins?: () => Promise<string[]>;
}

/** Standard streams and helpers for a CLI command. */
export interface CliIo {
  /** The first line of standard input (secrets that must not appear in the process list). */
  readSecret(this: void): Promise<string>;
}

/** The flags a command takes; `platform` refuses any other (every command also takes --data-dir and --help). */
export interface CommandFlags {
  /** `--name value` or `--name=value`. */
  values?: readonly string[];
  /** Flags without a value (`--check`). */
  switches?: readonly string[];
}

/** `platform <name> ...`: a command a service adds to the CLI; it prints what `run` returns, as JSON. */
export interface CliCommand<I> {
  name: string;
  /** Help lines, each starting with `platform <name>`. */
  usage: string[];
  /** What `run` reads from `flags`; none when absent. */
  flags?: CommandFlags;
  run(instance: I, words: string[], flags: Record<string, string | undefined>, io: CliIo): Promise<unknown>;
  /**
   * An administrative command also runs against a remote platform (`--url`, bin/remote-admin.ts):
   * the same words and flags over the admin API, printing what `run` prints on a data directory.
   */
  remote?(admin: AdminConnection, words: string[], flags: Record<string, string | undefined>, io: CliIo): Promise<unknown>;
}

export interface Job<I> {
  name: string;
  everyMs: number;
  run(instance: I): unknown;
}

/** SDL and resolvers of a service's subgraph; resolvers get the instance and how to establish its callers (`edge.callOf`). */
export interface SubgraphSpec<I, C = unknown> {
  sdl(): string;
  resolvers(instance: I, edge: SubgraphEdge<C>): Record<string, unknown>;
}

/**
 * One service of the platform, everything the platform needs to run, serve, compose, administer
 * and reach it. The platform loops over the registry (services/registry.ts); nothing outside a
 * service's own files names it. Hooks use method syntax so a list of different services type-checks.
 */
export interface ServiceModule<I extends ServiceInstance = ServiceInstance, S extends z.ZodObject = z.ZodObject, C = unknown> {
  /** Lower-case id: `platform serve <name>`, subgraph name, `SUBGRAPH_<NAME>_URL`. */
  name: string;
  title: string;
  /** REST prefix, disjoint from the others'. */
  prefix: string;
  /** RFC 9068 audience this service requires of access tokens (default: its name). */
  audience?: string;
  /** Its environment variables, merged into the platform's configuration and checked at start. */
  config?: S;
  /**
   * How its callers prove who they are (core/shared/auth/credentials.ts): every edge — its REST
   * routes, its subgraph's resolvers — establishes `ctx.caller` this way before a method runs.
   * None (public) when absent.
   */
  credentials?(instance: I): Credentials<C>;
  /** Services it calls in process when they run here (see SharedDeps.peer); they are opened before it. */
  uses?: readonly string[];
  /**
   * Its PostgreSQL migrations, each a SQL text, in order (core/shared/postgres/migrate.ts, scope: its
   * name): run before `open` when DATABASE_URL is set, and by `platform migrate`.
   */
  migrations?: readonly string[];
  /** Builds the core; `admin` for the CLI (durable writes, no caches worth warming). */
  open(deps: SharedDeps<z.output<S>>, opts: { admin?: boolean }): Promise<I> | I;
  rest?(instance: I, deps: SharedDeps<z.output<S>>): RestService;
  subgraph?: SubgraphSpec<I, C>;
  /**
   * Its part of the admin API (`/admin/api/v1`, rest/admin): routes whose `ctx.caller` is an
   * administrator (core/shared/admin/access.ts), merged with the other services' into one document.
   */
  admin?(instance: I, deps: SharedDeps<z.output<S>>): AdminFace;
  commands?: CliCommand<I>[];
  jobs?: Job<I>[];
  /** First start: creates what a new user needs and returns it for `bootstrap.json`; later starts get it back. */
  bootstrap?(instance: I, current: Readonly<Record<string, string>>, ctx: BootstrapContext): Promise<Record<string, string>>;
  /** The service's interface over its REST paths, for a deployment where it runs elsewhere. */
  client?(opts: { baseUrl: string }): unknown;
  /**
   * Its interface's health check (`health()`), for the overview (bin/overview.ts): on its instance
   * in this process, or on its REST client (`client`) when it runs elsewhere. Without it, a service
   * open here is healthy and a remote one is asked its process's `/healthz`.
   */
  health?(service: { instance: I } | { client: unknown }, signal: AbortSignal): Promise<unknown>;
  /**
   * A service that keeps the revoked-sessions feed: how a process that does not run it reads the
   * feed (its store when this process can reach it, else its public endpoint).
   */
  revocationReader?(deps: SharedDeps<z.output<S>>): Promise<RevocationReader>;
  /** A service whose instance offers `webOrigins`: how a process that does not run it reads them (its public endpoint). */
  webOriginsReader?(deps: SharedDeps<z.output<S>>): () => Promise<string[]>;
}

/**
 * What a service's bootstrap is told. Bootstraps of one database run one at a time (bin/bootstrap.ts),
 * so a replica that starts while another sets the database up finds what the other made.
 */
export interface BootstrapContext {
  /**
   * The stores are shared with other data directories (DATABASE_URL): what the first start made is
   * found here, made by another replica (or `platform init` elsewhere), whose secrets this data
   * directory cannot know (only their hashes are kept). Use it; do not make it again.
   */
  shared: boolean;
  /** Says that this start found another replica's accounts in place of its own (their secrets stay in that replica's bootstrap.json). */
  joined(): void;
}

/** A feed read from another process's store or endpoint, and how to let go of what reading it opened. */
export type RevocationReader = RevocationFeed & { close?(): void | Promise<void> };

export const audienceOf = (m: Pick<ServiceModule, 'name' | 'audience'>): string => m.audience ?? m.name;

/** Keeps a service's own types while adding it to a list of services. */
export const defineService = <I extends ServiceInstance, S extends z.ZodObject, C = undefined>(m: ServiceModule<I, S, C>): ServiceModule =>
  m as unknown as ServiceModule;
