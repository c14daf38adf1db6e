/**
 * What the routing bench reads from its failing fakes (bench/models/fleet.ts) and the callers'
 * results, and the figures it draws from them: errors callers saw, attempts per call, how long
 * after a failing answer the fallback reached another deployment, and when the failing deployment
 * was tried again. Pure, so the arithmetic is unit-tested (test/bench/models/fleet-log.test.ts).
 */

export type FaultMode = 'ok' | '500' | '429' | 'stall' | 'half-reset';

/** What a fake is told to do with every chat call until told otherwise. */
export interface Fault {
  mode: FaultMode;
  /** The `Retry-After` of a 429, seconds (3600 when absent). */
  retryAfterSeconds?: number;
}

/** One chat call as a fake saw it; times are epoch ms (one process, one clock). */
export interface FakeEvent {
  /** Which fake (0-based): the deployment it stands for. */
  deployment: number;
  /** The caller's marker found in the request (empty when none). */
  marker: string;
  receivedAt: number;
  /** When its answer ended (sent, reset, or the caller of the fake gave up); 0 while still open. */
  endedAt: number;
  /** The fault mode the fake was in when the call arrived ('ok': a good answer). */
  outcome: FaultMode;
}

/** One call as the bench's caller saw it. */
export interface CallResult {
  marker: string;
  /** HTTP status, or 0 when the connection failed or the caller's timeout struck. */
  status: number;
  /** 200 with a whole answer (the stream read to `[DONE]`). */
  ok: boolean;
  /** The first bytes of a failed answer, or the network error. */
  error?: string;
}

/** Nearest-rank percentile of an ascending array (NaN when empty). */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] : Number.NaN;

export interface FailoverFigures {
  calls: number;
  callerErrors: number;
  /** The statuses of the failed calls, counted ("12×503 3×0"). */
  errorStatuses: string;
  /** Attempts the fakes saw per call: mean and max (calls whose marker reached no fake count 0). */
  attemptsMean: number;
  attemptsMax: number;
  /** Every attempt the fakes saw for these calls. */
  attemptsTotal: number;
  /** ms from a failing answer to the same call reaching another deployment, ascending. */
  fallbackGaps: number[];
  /** The gap of the earliest failing answer that was followed by a fallback (NaN when none). */
  firstFallbackMs: number;
  /**
   * The longest pause in the failing deployment's traffic while it failed (ms; from the fault's
   * start, to its end): under steady load, about the cooldown when it has one, a scheduling hiccup
   * when it has none, the whole fault when it was never tried after a cooldown began.
   */
  longestPauseMs: number;
  /** Attempts at the failing deployment that arrived more than `settleMs` after its first failing answer. */
  lateAttempts: number;
  /** Attempts at the failing deployment while it failed: 0 means the fault was never put to the test. */
  failingHits: number;
  /** ms from the fault's end to the failing deployment's first good answer (NaN: none before `until`). */
  backAfterHealMs: number;
}

export interface Window {
  /** Which deployment fails (the others stay healthy, unless `allFail`). */
  failing: number;
  /** When the fault began and ended (epoch ms; `healAt` undefined: it never ended). */
  faultAt: number;
  healAt?: number;
  /** The end of observation. */
  until: number;
  /** Attempts at the failing deployment within this long of its first failing answer were on their way already. */
  settleMs: number;
}

const counted = (values: (string | number)[]) => {
  const m = new Map<string, number>();
  for (const v of values) m.set(String(v), (m.get(String(v)) ?? 0) + 1);
  return [...m].map(([v, n]) => `${n}×${v}`).join(' ');
};

/** The figures of one failover scenario. */
export function failoverFigures(calls: readonly CallResult[], seen: readonly FakeEvent[], w: Window): FailoverFigures {
  // Only this scenario's calls: a gateway still working off an earlier scenario's calls (their
  // callers gone) is not this one's traffic.
  const mine = new Set(calls.map((c) => c.marker));
  const events = seen.filter((e) => mine.has(e.marker));
  const byMarker = new Map<string, FakeEvent[]>();
  for (const e of events) if (e.marker) byMarker.set(e.marker, [...(byMarker.get(e.marker) ?? []), e]);
  const attempts = calls.map((c) => byMarker.get(c.marker)?.length ?? 0);
  const failed = calls.filter((c) => !c.ok);

  // A failing answer followed, for the same call, by an attempt at another deployment.
  const fallbacks: { at: number; gap: number }[] = [];
  for (const list of byMarker.values()) {
    const sorted = [...list].sort((a, b) => a.receivedAt - b.receivedAt);
    for (let i = 0; i + 1 < sorted.length; i++) {
      const a = sorted[i];
      const b = sorted[i + 1];
      if (a.outcome !== 'ok' && a.endedAt > 0 && b.deployment !== a.deployment)
        fallbacks.push({ at: a.endedAt, gap: b.receivedAt - a.endedAt });
    }
  }
  fallbacks.sort((a, b) => a.at - b.at);

  const atFailing = events
    .filter((e) => e.deployment === w.failing && e.receivedAt >= w.faultAt)
    .sort((a, b) => a.receivedAt - b.receivedAt);
  const faultEnd = w.healAt ?? w.until;
  const duringFault = atFailing.filter((e) => e.receivedAt < faultEnd);
  let longestPauseMs = 0;
  let last = w.faultAt;
  for (const e of duringFault) {
    longestPauseMs = Math.max(longestPauseMs, e.receivedAt - last);
    last = Math.max(last, e.endedAt || e.receivedAt);
  }
  longestPauseMs = Math.max(longestPauseMs, faultEnd - last);
  const firstFailure = duringFault.find((e) => e.outcome !== 'ok' && e.endedAt > 0);
  const lateAttempts = firstFailure ? duringFault.filter((e) => e.receivedAt > firstFailure.endedAt + w.settleMs).length : 0;
  const back = w.healAt === undefined ? undefined : atFailing.find((e) => e.receivedAt >= w.healAt! && e.outcome === 'ok');

  return {
    calls: calls.length,
    callerErrors: failed.length,
    errorStatuses: counted(failed.map((c) => c.status)),
    attemptsMean: attempts.reduce((s, n) => s + n, 0) / Math.max(1, attempts.length),
    attemptsMax: Math.max(0, ...attempts),
    attemptsTotal: events.length,
    fallbackGaps: fallbacks.map((f) => f.gap).sort((a, b) => a - b),
    firstFallbackMs: fallbacks[0]?.gap ?? Number.NaN,
    longestPauseMs,
    lateAttempts,
    failingHits: duringFault.length,
    backAfterHealMs: back && w.healAt !== undefined ? back.receivedAt - w.healAt : Number.NaN,
  };
}
