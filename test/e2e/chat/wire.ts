/** Reading the chat proxy's streams in tests: SSE events (`data:` lines, `[DONE]` last) or NDJSON lines. */
import { sseData } from '../../shared/sse';
export interface Chunk {
  generated_search_text: string;
  response: string;
  finish_reason: string | null;
}

export function sseChunks(text: string): { chunks: Chunk[]; done: boolean } {
  const datas = sseData(text);
  const done = datas.at(-1) === '[DONE]';
  return { chunks: datas.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d) as Chunk), done };
}

export const ndjsonChunks = (text: string): Chunk[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Chunk);

export const joined = (chunks: Chunk[]) => chunks.map((c) => c.response).join('');

/** POSTs a body to a chat path and returns status, content type and text. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal,
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}
