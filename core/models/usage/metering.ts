import type { Clock } from '../../shared/clock';
import type { CatalogModel } from '../catalog/catalog';
import type { ChatStream, FinishReason } from '../neutral';
import type { KeyCaller, Metered } from '../service';
import type { UsageStore } from '../ports';
import { costOf, wordCount } from './usage';
import type { KeyLimits } from '../keys/limits';
import type { Offload } from '../offload/offload';
import type { Metrics } from '../../shared/telemetry/metrics';
import type { Span } from '../../shared/telemetry/tracing';
import { callMetrics } from './call-metrics';
import { UpstreamFailed } from '../../shared/errors';
import type { CallEnd, StatusOf } from '../../shared/call-end';

/** How a stream the upstream broke off (or ended with an error) ends, whatever the error was. */
const BROKE: CallEnd = { failed: new UpstreamFailed('The upstream failed midway through its answer', { code: 'upstream_failed' }) };

/**
 * A metered call and whose it is; `span` is its trace span (`model <route> <model id>`, started by
 * the pipeline), ended when the call is recorded: at the end of its stream for a chat answer.
 */
export type MeteredCall = Metered & { caller: KeyCaller; span?: Span };

/** One call's record, as the pipeline knows it when the call ends. */
export interface CallOutcome {
  end: CallEnd;
  startedAt: number;
  upstreamMs?: number | null;
  /** Counted only when the upstream does not say (tokenizing costs). */
  tokensIn?: number | (() => number);
  tokensOut?: number;
  wordsSent?: number;
  wordsReceived?: number;
  cache?: string;
  guard?: string;
  /** Which deployment answered, after how many attempts (core/models/routing): `model` is the fallback's when one answered, and prices the call. */
  served?: { model: CatalogModel; deployment: string; attempts: number };
}

/**
 * Writes usage rows (with cost and the tenant-profile options), counts tokens against the key's
 * budget, and gives each row to the metrics (call-metrics.ts) and ends the call's span: the one
 * place every call is recorded, refused or not.
 */
export function meter(deps: {
  clock: Clock;
  usage: UsageStore;
  limits: KeyLimits;
  offload: Offload;
  statusOf: StatusOf;
  metrics?: Metrics;
}) {
  const observe = callMetrics(deps.metrics);
  const record = (m: MeteredCall, o: CallOutcome) => {
    const now = deps.clock.now();
    const status = deps.statusOf(o.end);
    const { is_cache: _c, use_guard: _g, app_name: _a, ...profile } = m.caller.options;
    const tokensIn = (typeof o.tokensIn === 'function' ? o.tokensIn() : o.tokensIn) ?? 0;
    const tokensOut = o.tokensOut ?? 0;
    const cost = costOf(m.model, tokensIn, tokensOut);
    const cache = o.cache ?? 'BYPASS';
    const guard = o.guard ?? 'n/a';
    deps.limits.spend(m.caller.key, tokensIn + tokensOut);
    void deps.usage
      .record(
        {
          at: now,
          keyId: m.caller.key.id,
          tenant: m.caller.key.tenant,
          model: m.model.id,
          route: m.route,
          status,
          latencyMs: now - o.startedAt,
          upstreamMs: o.upstreamMs ?? null,
          tokensIn,
          tokensOut,
          wordsSent: o.wordsSent ?? 0,
          wordsReceived: o.wordsReceived ?? 0,
          cache,
          guard,
          options: profile,
        },
        cost,
      )
      .catch(() => undefined);
    observe?.({
      model: m.model.id,
      tenant: m.caller.key.tenant,
      route: m.route,
      status,
      latencyMs: now - o.startedAt,
      tokensIn,
      tokensOut,
      cost,
      cache,
      guard,
    });
    if (m.span) {
      // Tracing off, the span records nothing: its attributes are not even built.
      if (m.span.isRecording()) {
        m.span.setAttributes({
          'http.response.status_code': status,
          'gen_ai.usage.input_tokens': tokensIn,
          'gen_ai.usage.output_tokens': tokensOut,
          'model.cache': cache,
        });
        // ERROR, as the HTTP server span marks a 5xx (OpenTelemetry's HTTP conventions, on the status kept).
        if (status >= 500) m.span.setStatus({ code: 2 });
      }
      m.span.end();
    }
  };

  /**
   * The stream, recorded when it ends: ok with the upstream's token counts when it finished, failed
   * as an upstream failure when the upstream failed midway, left when the caller left before the end.
   */
  const stream = (m: MeteredCall, s: ChatStream, o: Omit<CallOutcome, 'end'> & { calledAt: number; signal?: AbortSignal }): ChatStream => {
    let text = '';
    let firstAt: number | null = null;
    let failed = false;
    let ended = false;
    const pieces = (async function* metered() {
      try {
        for await (const p of s.pieces) {
          firstAt ??= deps.clock.now();
          text += p;
          yield p;
        }
        ended = true;
      } catch (err) {
        failed = true;
        throw err;
      } finally {
        const upstreamMs = o.cache === 'HIT' ? null : (firstAt ?? deps.clock.now()) - o.calledAt;
        const settle = (finishReason: FinishReason | null, usage?: { promptTokens: number; completionTokens: number }) => {
          // A caller who left aborts the upstream read, which then fails: still the caller's 499.
          const end: CallEnd = !ended && o.signal?.aborted ? 'left' : failed || finishReason === 'error' ? BROKE : ended ? 'ok' : 'left';
          const write = (tokensOut: number) =>
            record(m, { ...o, upstreamMs, end, tokensIn: usage?.promptTokens ?? o.tokensIn, tokensOut, wordsReceived: wordCount(text) });
          // What the upstream did not count is counted here, off the event loop when long.
          if (usage) write(usage.completionTokens);
          else void deps.offload.run('count', [[text], Infinity], text.length).then(write, () => write(0));
        };
        if (ended || failed)
          void s.done.then(
            (d) => settle(d.finishReason, d.usage),
            () => settle('error'),
          );
        else settle(null);
      }
    })();
    return { pieces, done: s.done };
  };

  return { record, stream };
}

export type Meter = ReturnType<typeof meter>;
