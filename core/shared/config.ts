import { availableParallelism } from 'node:os';
import { z } from 'zod';

const url = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''));
const optionalUrl = z.preprocess((v) => (v === '' ? undefined : v), url.optional());
const count = (fallback: number, max = 1_000_000) => z.coerce.number().int().positive().max(max).default(fallback);
/** A yes/no setting: `true`/`false` (or `1`/`0`, `yes`/`no`, `on`/`off`), anything else refused. */
const flag = (fallback: boolean) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { error: 'expected true or false' }))
    .transform((v) => ['true', '1', 'yes', 'on'].includes(v))
    .default(fallback);

const otlpProtocol = z.enum(['http/protobuf', 'http/json'], { error: 'http/protobuf or http/json (OTLP over gRPC is not offered)' });

/**
 * 16 MiB: a file of about 12 MiB in base64 with its metadata. Parsing such a body holds the event
 * loop some 25-40 ms (one string: docs/decisions.md, issue 34); larger files go through the REST
 * multipart upload, which streams them (SEARCH_MAX_UPLOAD_BYTES).
 */
export const DEFAULT_GRAPHQL_MAX_BODY_BYTES = 16 * 1024 * 1024;

/** The platform's own settings; each service adds its own (services/<name>/index.ts `config`). */
const Platform = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  PLATFORM_DATA_DIR: z.string().min(1).default('./data'),
  /** Base URL callers use to reach this deployment; token issuers are derived from it. */
  PUBLIC_URL: optionalUrl,
  /** Base URL of the deployment that issues access tokens, when it is not this one (remote mode). */
  AUTH_ISSUER_URL: optionalUrl,
  /**
   * PostgreSQL for every service's state (`postgres://user:password@host:5432/db`), shared by any
   * number of replicas; the SQLite files of PLATFORM_DATA_DIR when absent (docs/postgres.md).
   */
  DATABASE_URL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^postgres(ql)?:\/\/\S+$/, 'a postgres:// or postgresql:// URL')
      .optional(),
  ),
  /** Connections each process keeps to DATABASE_URL. */
  DATABASE_POOL_SIZE: count(10, 1000),
  /**
   * Redis for what must be counted or cached across replicas (a key's limits, failed
   * authentications, cached answers, persisted queries); per machine when absent (docs/redis.md).
   */
  REDIS_URL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^rediss?:\/\/\S+$/, 'a redis:// or rediss:// URL')
      .optional(),
  ),
  /** Before every key the platform keeps in Redis: deployments (or tests) sharing one Redis keep apart by it. */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[\w:.-]{1,64}$/, 'letters, digits, and _ : . - (at most 64)')
    .default('platform:'),
  /**
   * Milliseconds one Redis command may take before it fails; the caller then goes on without Redis
   * (limits and throttles fail open, the cache is skipped: docs/redis.md).
   */
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(300),
  /**
   * Seconds a stopping process (SIGTERM) lets requests in flight, streamed answers included, finish
   * before it cuts them; it stops taking new ones at once and /readyz answers 503 meanwhile.
   */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(10),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Largest JSON or form body accepted, in bytes (413 above); a GraphQL document and a graphql-ws message too. */
  BODY_LIMIT_BYTES: count(1_048_576, 1 << 30),
  /**
   * Largest JSON body of an HTTP request to /graphql, at the gateway and at a subgraph served alone
   * (413 PAYLOAD_TOO_LARGE above): `uploadDocument` carries a file in base64 in its variables.
   */
  GRAPHQL_MAX_BODY_BYTES: count(DEFAULT_GRAPHQL_MAX_BODY_BYTES, 1 << 30),
  /** Seconds of clock skew tolerated when verifying tokens (`exp`, `iat`). */
  TOKEN_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  /**
   * Days audit events are kept (docs/admin.md): older ones are deleted every hour by the process
   * that runs the background jobs. 0 keeps them forever.
   */
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(90),
  /**
   * Seconds between a serving process's heartbeats (docs/observability.md, the overview): each
   * writes its row of the replicas seen, with its recent errors; one not seen for three is gone.
   */
  HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(300).default(5),
  /**
   * Which peers may state the caller's address in X-Forwarded-For (express's `trust proxy`):
   * nobody by default (`false`); `loopback` for a reverse proxy on this host, or a comma-separated
   * list of addresses or subnets.
   */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v): false | string[] =>
      ['false', '0', 'none', ''].includes(v.trim().toLowerCase())
        ? false
        : v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
    ),
  /** Browser origins allowed to call the platform (comma-separated, or `*`); none by default. */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((o) => o.trim().replace(/\/+$/, ''))
        .filter(Boolean),
    ),
  /** Processes `platform start` and `platform serve` run (they share the port); the number of cores by default. */
  WORKERS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(() => Math.min(64, availableParallelism())),
  /**
   * The management port where the primary process serves Prometheus metrics at /metrics, every
   * worker's figures aggregated; never the public port. 0 turns metrics off (nothing is recorded).
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** Address the metrics port listens on; HOST's by default. */
  METRICS_HOST: z.string().min(1).optional(),
  /** Tenants that get a label of their own in the metrics (the first ones seen, per process); the rest count as `other`. 0: no tenant label. */
  METRICS_MAX_TENANTS: z.coerce.number().int().min(0).max(10_000).default(100),
  /** OpenTelemetry traces: `otlp` turns them on (OTLP over HTTP); `none`, the default, leaves them off. */
  OTEL_TRACES_EXPORTER: z
    .string()
    .trim()
    .toLowerCase()
    .default('none')
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .refine((l) => l.every((x) => x === 'otlp' || x === 'none'), 'otlp or none (the platform exports traces over OTLP/HTTP only)'),
  OTEL_SDK_DISABLED: flag(false),
  /** OTLP over HTTP as protobuf (default) or JSON; gRPC is not offered. */
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol.default('http/protobuf'),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol.optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
  /** Milliseconds between two batches of spans (the SDK's default: 5000). */
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(0).max(3_600_000).optional(),
  /** Bounds on every GraphQL operation, checked before it runs. */
  GRAPHQL_MAX_TOKENS: count(5000),
  GRAPHQL_MAX_DEPTH: count(12, 100),
  GRAPHQL_MAX_ALIASES: count(30),
  GRAPHQL_MAX_COST: count(2000),
  GRAPHQL_MAX_MUTATIONS: count(5, 100),
  GRAPHQL_MAX_VARIABLE_VALUES: count(10_000),
  GRAPHQL_MAX_DEFERS: count(10, 100),
  /** Whether the graph answers introspection (`__schema`, `__type`); turn off in production to hide it. */
  GRAPHQL_INTROSPECTION: flag(true),
  /** Whether a browser's GET /graphql gets Apollo Sandbox (and /graphiql is served). */
  GRAPHQL_LANDING_PAGE: flag(true),
  /** Memory for the gateway's query plans (least recently used evicted past it), in MiB. */
  GRAPHQL_QUERY_PLAN_CACHE_MB: count(30, 4096),
  /** Room for automatic persisted queries' documents in gateway.db, shared by the workers (oldest evicted past it), in MiB. */
  GRAPHQL_APQ_CACHE_MB: count(10, 4096),
  /** The gateway's response cache: public cacheable answers kept for their maxAge (docs/graphql-caching.md); `on` or `off`. */
  GRAPHQL_RESPONSE_CACHE: flag(false),
  /** Room for the response cache's answers in gateway.db (or memory), in MiB; in Redis, Redis's own maxmemory bounds them. */
  GRAPHQL_RESPONSE_CACHE_MB: count(50, 4096),
  /** What the gateway does with an operation no app's trusted document list holds: run it (off), run and log it, or refuse it. */
  GRAPHQL_TRUSTED_DOCUMENTS: z.enum(['off', 'log', 'refuse'], { error: 'off, log or refuse' }).default('off'),
  /** Milliseconds the gateway waits for a remote subgraph's answer before the error names it (UPSTREAM_ERROR). */
  GRAPHQL_SUBGRAPH_TIMEOUT_MS: count(120_000, 3_600_000),
  /**
   * Milliseconds between heartbeats of every open stream: REST server-sent events' comments, GraphQL
   * over SSE's comments, multipart heartbeats, graphql-ws pings. Unset: GRAPHQL_KEEPALIVE_MS, its
   * name before issue 31, when that is set, else 10 s.
   */
  STREAM_HEARTBEAT_MS: z.coerce.number().int().positive().max(600_000).optional(),
  /** STREAM_HEARTBEAT_MS's former name, still read when that is unset. */
  GRAPHQL_KEEPALIVE_MS: z.coerce.number().int().positive().max(600_000).optional(),
  /** Milliseconds a WebSocket may take to send connection_init before it is closed (4408). */
  GRAPHQL_WS_INIT_TIMEOUT_MS: count(3000, 600_000),
  /**
   * Open graphql-ws sockets one client address (as TRUST_PROXY resolves it) may hold in each
   * process; another upgrade is refused with 429. Behind a proxy, set TRUST_PROXY, or every client
   * shares the proxy's address.
   */
  GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS: count(50, 100_000),
});

/** Between heartbeats of an open stream when STREAM_HEARTBEAT_MS (or its former name) is unset, and where no setting is given (tests). */
export const DEFAULT_STREAM_HEARTBEAT_MS = 10_000;

export type Config = Readonly<
  Omit<z.output<typeof Platform>, 'STREAM_HEARTBEAT_MS' | 'GRAPHQL_KEEPALIVE_MS'> & {
    STREAM_HEARTBEAT_MS: number;
    PUBLIC_URL: string;
    AUTH_ISSUER_URL: string;
    /** `SUBGRAPH_<NAME>_URL` of each registered subgraph that is reached over HTTP. */
    subgraphUrls: Readonly<Record<string, string>>;
    /** Whether METRICS_PORT was set (a taken port then stops start-up) or is the default (then a warning). */
    metricsPortSet: boolean;
  }
>;

export class ConfigError extends Error {}

/** What the registered services add: their own settings, and the subgraphs the gateway may reach remotely. */
export interface ConfigParts {
  schemas?: readonly z.ZodObject[];
  subgraphs?: readonly string[];
}

export const subgraphUrlVar = (name: string) => `SUBGRAPH_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_URL`;

/** Parsed once at start so a bad environment stops start-up with a message naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env, parts: ConfigParts = {}): Config {
  // An empty variable (`PORT=`) means unset, not zero.
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const urls = Object.fromEntries((parts.subgraphs ?? []).map((n) => [subgraphUrlVar(n), optionalUrl]));
  const schema = (parts.schemas ?? []).reduce<z.ZodObject>((all, s) => all.extend(s.shape), Platform.extend(urls));
  const parsed = schema.safeParse(given);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data as z.output<typeof Platform> & Record<string, unknown>;
  const host = c.HOST === '0.0.0.0' || c.HOST === '::' ? 'localhost' : c.HOST;
  const publicUrl = c.PUBLIC_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${c.PORT}`;
  const subgraphUrls = Object.fromEntries(
    (parts.subgraphs ?? []).map((n) => [n, c[subgraphUrlVar(n)]]).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  const { GRAPHQL_KEEPALIVE_MS: formerHeartbeat, ...settings } = c;
  const heartbeatMs = c.STREAM_HEARTBEAT_MS ?? formerHeartbeat ?? DEFAULT_STREAM_HEARTBEAT_MS;
  return Object.freeze({
    ...settings,
    STREAM_HEARTBEAT_MS: heartbeatMs,
    PUBLIC_URL: publicUrl,
    AUTH_ISSUER_URL: c.AUTH_ISSUER_URL ?? publicUrl,
    subgraphUrls,
    metricsPortSet: given.METRICS_PORT !== undefined,
  });
}
