import type { Clock } from '../clock';

/**
 * The last server-side failures of one process (5xx answers, streams that failed midway, GraphQL
 * errors coded INTERNAL_SERVER_ERROR, UPSTREAM_ERROR or SERVICE_UNAVAILABLE, failed background
 * jobs), kept in memory and published with the process's heartbeat (core/shared/overview) for the
 * console's overview. What is kept is what an operator may read: never a stack, a body, a token or
 * a secret (safeText), and the request id that finds the full story in the log.
 */
export interface ServerError {
  /** Epoch milliseconds. */
  at: number;
  /** The service that failed (`token`, `search`, `models`, `chat`, `admin`), `graph` for the gateway, `platform` for the process. */
  service: string;
  /** Where: a route (`POST /proxy/api/v1/models`), a GraphQL operation (`query Name (field.path)`) or a job (`job: name`). */
  where: string;
  /** The error's own code (`model_error`), else its kind (`upstream`, `internal`) or its GraphQL code. */
  code: string;
  message: string;
  requestId?: string;
}

export interface RecentErrors {
  record(this: void, e: Omit<ServerError, 'at'>): void;
  /** Newest first. */
  list(this: void): ServerError[];
}

/** How many a process keeps: the oldest goes when one more comes. */
export const RECENT_ERRORS = 50;
const MAX_TEXT = 300;
const MAX_LABEL = 200;

const REDACTIONS: [RegExp, string][] = [
  // A credential scheme and what follows it (Authorization: Bearer ..., Basic ...).
  [/\b(Bearer|Basic)\s+\S+/gi, '$1 [redacted]'],
  // JSON Web Tokens (access, refresh and ID tokens).
  [/\beyJ[\w-]{4,}\.[\w-]+\.[\w-]*/g, '[token]'],
  // A password in a URL's user information (postgres://user:secret@host).
  [/(\b[a-z][\w+.-]*:\/\/)[^\s/@]*@/gi, '$1[redacted]@'],
  // A URL's query string (codes, states, keys given as parameters).
  [/(\b[a-z][\w+.-]*:\/\/[^\s?#]*)\?[^\s#]*/gi, '$1?[redacted]'],
  // name=value or name: value for names that hold secrets.
  [
    /\b(api[-_]?key|password|passwd|secret|client_secret|token|access_token|refresh_token|id_token|authorization|credential)s?(["']?\s*[=:]\s*["']?)(?!Bearer\b|Basic\b|\[)[^\s"'&,;]+/gi,
    '$1$2[redacted]',
  ],
  // The platform's LM keys and vendors' keys by their shapes, then any long opaque string.
  [/\b(lmk-[\w-]{8,}|sk-[\w-]{16,}|AKIA[0-9A-Z]{16}|AIza[\w-]{30,}|gh[pousr]_\w{30,}|xox[abprs]-[\w-]{10,})/g, '[redacted]'],
  [/[A-Za-z0-9+/_-]{40,}={0,2}/g, '[redacted]'],
];

/** `text` as the overview may show it: its first line, with secrets taken out, at most `max` characters. */
export function safeText(text: string, max = MAX_TEXT): string {
  // Bounded before the patterns run: a message may carry a whole body on its first line.
  let out = String(text).split(/\r?\n/, 1)[0].slice(0, 4096).trim();
  for (const [pattern, replacement] of REDACTIONS) out = out.replace(pattern, replacement);
  // Control characters would break a log line or a table cell.
  out = [...out].map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f ? ' ' : c)).join('');
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

/** An error as the overview describes it: its class and message (`TypeError: ...`), made safe. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return safeText(err.name && err.name !== 'Error' ? `${err.name}: ${err.message}` : err.message);
  return safeText(typeof err === 'string' ? err : 'unknown error');
}

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function recentErrors(opts: { clock: Clock; capacity?: number }): RecentErrors {
  const capacity = opts.capacity ?? RECENT_ERRORS;
  const ring: ServerError[] = [];
  return {
    record(e) {
      ring.push({
        at: opts.clock.now(),
        service: safeText(e.service, 64),
        where: safeText(e.where, MAX_LABEL),
        code: safeText(e.code, 64),
        message: safeText(e.message),
        // Request ids are echoed from callers: only a well-formed one is kept.
        ...(e.requestId && SAFE_ID.test(e.requestId) ? { requestId: e.requestId } : {}),
      });
      if (ring.length > capacity) ring.splice(0, ring.length - capacity);
    },
    list: () => [...ring].reverse(),
  };
}

/** Records nothing: for faces built without a process around them (tests, tools). */
export const noRecentErrors: RecentErrors = { record: () => undefined, list: () => [] };
