import { noMetrics, secondsSince, type Metrics } from '../shared/telemetry/metrics';

/**
 * The chat proxy's metrics: `platform_chat_answers_total{stream,outcome}` and
 * `platform_chat_answer_duration_seconds{stream}`, from the question's arrival to the answer's
 * end (a stream's last chunk). Undefined when metrics are off.
 */
export function answerMetrics(metrics: Metrics = noMetrics): ((stream: boolean, ok: boolean, start: bigint) => void) | undefined {
  if (metrics === noMetrics) return undefined;
  const answers = metrics.counter({
    name: 'platform_chat_answers_total',
    help: 'Chat answers, streamed or not, by outcome (ok, error)',
    labels: ['stream', 'outcome'],
  });
  const duration = metrics.histogram({
    name: 'platform_chat_answer_duration_seconds',
    help: "Chat answers from the question to the answer's end (a stream's last chunk)",
    labels: ['stream'],
  });
  return (stream, ok, start) => {
    const s = stream ? 'true' : 'false';
    answers.inc({ stream: s, outcome: ok ? 'ok' : 'error' });
    duration.observe({ stream: s }, secondsSince(start));
  };
}
