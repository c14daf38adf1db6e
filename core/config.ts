import { z } from 'zod';

const url = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''));
const optionalUrl = z.preprocess((v) => (v === '' ? undefined : v), url.optional());

const Schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  PLATFORM_DATA_DIR: z.string().min(1).default('./data'),
  /** Base URL callers use to reach this deployment; token issuers are derived from it. */
  PUBLIC_URL: optionalUrl,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Largest JSON or form body accepted, in bytes (413 above). */
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_048_576),
  /** Failed password attempts before a user is locked out, and for how long. */
  LOCKOUT_THRESHOLD: z.coerce.number().int().positive().default(5),
  LOCKOUT_SECONDS: z.coerce.number().int().positive().default(900),
  /** Failed client or user authentications allowed per caller address per minute (429 past it). */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().positive().default(30),
  /** Seconds of clock skew tolerated when other services verify tokens. */
  TOKEN_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  /**
   * Which peers may state the caller's address in X-Forwarded-For (express's `trust proxy`):
   * `loopback` (default: a reverse proxy on this host), a comma-separated list of addresses or
   * subnets, or `false` to trust nobody.
   */
  TRUST_PROXY: z.string().default('loopback').transform((v): false | string[] =>
    ['false', '0', 'none'].includes(v.trim().toLowerCase()) ? false : v.split(',').map((s) => s.trim()).filter(Boolean)),
  /** Browser origins allowed to call the platform (comma-separated, or `*`); none by default. */
  CORS_ORIGINS: z.string().default('').transform((v) => v.split(',').map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean)),
  /** Remote mode: where the gateway finds the token subgraph (else in process). */
  SUBGRAPH_TOKEN_URL: optionalUrl,
});

export type Config = Readonly<z.infer<typeof Schema> & { PUBLIC_URL: string }>;

export class ConfigError extends Error {}

/** Parsed once at start so a bad environment stops start-up with a message naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty variable (`PORT=`) means unset, not zero.
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = Schema.safeParse(given);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  const host = c.HOST === '0.0.0.0' || c.HOST === '::' ? 'localhost' : c.HOST;
  const publicUrl = c.PUBLIC_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${c.PORT}`;
  return Object.freeze({ ...c, PUBLIC_URL: publicUrl });
}
