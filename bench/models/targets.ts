/** The same chat request several ways for `npm run bench:models`: to the upstream, through the bare proxy, through the gateway (three guard levels), through Portkey. */
import type { Target } from '../shared/load';
import type { Call } from './latency';
import { portkeyHeaders } from './peer';

export const BENCH_MODEL = 'bench-chat';

/** A prompt of realistic size: a system message with a few sources, a question. */
const SOURCES = Array.from(
  { length: 6 },
  (_, i) =>
    `[${i + 1}] Glaciers in region ${i + 1} retreated by ${(i + 2) * 7} metres a year between 2000 and 2020 as summer temperatures rose; ` +
    'meltwater raised the sea level and fed rivers downstream.',
).join('\n');
export const chatBody = (stream: boolean) =>
  JSON.stringify({
    model: 'bench-model',
    max_tokens: 64,
    ...(stream ? { stream: true } : {}),
    messages: [
      { role: 'system', content: `Answer from these sources.\n${SOURCES}` },
      { role: 'user', content: 'How fast did the glaciers retreat, and why?' },
    ],
  });

export interface Routes {
  upstream: string;
  /** The bare pass-through proxy (bench/models/bare-proxy.ts) in front of the upstream. */
  bare: string;
  gateway: string;
  portkey: string;
  apiKey: string;
}

export type Way = 'direct' | 'bare proxy' | 'gateway' | 'gateway use_guard 1' | 'gateway use_guard 2' | 'portkey';

/** Where each way sends the request, with which headers. */
export function ways(r: Routes): Record<Way, { url: string; headers: Record<string, string> }> {
  const json = { 'content-type': 'application/json' };
  const gateway = `${r.gateway}/proxy/api/v1/azure/openai/deployments/${BENCH_MODEL}/chat/completions?api-version=2024-10-21`;
  const key = (guard: number) => ({ ...json, 'api-key': `${r.apiKey}/{"is_cache": 0, "use_guard": ${guard}}` });
  return {
    direct: { url: `${r.upstream}/v1/chat/completions`, headers: { ...json, authorization: 'Bearer sk-bench' } },
    'bare proxy': { url: `${r.bare}/v1/chat/completions`, headers: { ...json, authorization: 'Bearer sk-bench' } },
    gateway: { url: gateway, headers: key(0) },
    'gateway use_guard 1': { url: gateway, headers: key(1) },
    'gateway use_guard 2': { url: gateway, headers: key(2) },
    portkey: { url: `${r.portkey}/v1/chat/completions`, headers: portkeyHeaders(`${r.upstream}/v1`) },
  };
}

const STREAM_END = 'data: [DONE]';
const ANSWER_END = '"finish_reason":"stop"';

export const callOf = (name: string, w: { url: string; headers: Record<string, string> }, stream: boolean): Call => ({
  name,
  url: w.url,
  headers: w.headers,
  body: chatBody(stream),
  marker: stream ? STREAM_END : ANSWER_END,
});

export const targetOf = (name: string, w: { url: string; headers: Record<string, string> }, stream: boolean): Target => ({
  name,
  method: 'POST',
  url: w.url,
  headers: w.headers,
  body: chatBody(stream),
  marker: stream ? STREAM_END : ANSWER_END,
  check: (j) => stream || (typeof j === 'object' && j !== null && 'choices' in j),
});
