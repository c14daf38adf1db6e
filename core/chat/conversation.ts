import { ValidationFailed } from '../shared/errors';
import type { GenerateAnswerBody, Turn } from './inputs';

/** The spec's continuation constant and what it becomes. */
export const CONTINUE_ANSWER = '$continue_answer';
export const CONTINUE = 'continue';

export interface HistoryTurn {
  user_query: string;
  response?: string;
}

export interface FileRefs {
  /** Files the user uploaded for this question (`source_category` `InputFile`). */
  uploaded: string[];
}

/** Spec behaviour 1: `$continue_answer` becomes `continue`; any other query is returned unchanged. */
export const processQuery = (query: string): string => (query.trim() === CONTINUE_ANSWER ? CONTINUE : query);

type Request = GenerateAnswerBody['request'];

/** DECISIONS: the query at the top level wins over `request.query` and `request.user_chat.query`; one of them is required. */
export function queryOf(top: string | null | undefined, request: Request): string {
  const query = [top, request.query, request.user_chat?.query].find((q): q is string => typeof q === 'string' && q.trim() !== '');
  if (query === undefined) {
    throw new ValidationFailed([{ loc: ['body', 'query'], msg: 'Field required: query, request.query or request.user_chat.query', type: 'missing' }]);
  }
  return query;
}

/** `kvp` of the request, with `user_chat.kvp` under it (the request's own keys win). */
export const kvpOf = (request: Request) => ({ ...(request.user_chat?.kvp ?? {}), ...(request.kvp ?? {}) });

export function uploadedFiles(request: Request): string[] {
  const files = kvpOf(request).files ?? [];
  return [...new Set(files.filter((f) => (f.source_category ?? 'InputFile') === 'InputFile').map((f) => f.file_name))];
}

/**
 * `history_prompt` / `chat_hist` as turns: `{user_query, response}` objects, `{role, content}`
 * messages (an assistant message answers the user message before it), or bare queries.
 */
export function historyOf(turns: readonly Turn[] | undefined | null): HistoryTurn[] {
  const out: HistoryTurn[] = [];
  for (const t of turns ?? []) {
    if (typeof t === 'string') out.push({ user_query: t });
    else if ('user_query' in t) out.push({ user_query: t.user_query, ...(t.response ? { response: t.response } : {}) });
    else if (t.role === 'user') out.push({ user_query: t.content });
    else {
      const last = out.at(-1);
      if (last && last.response === undefined) last.response = t.content;
      else out.push({ user_query: '', response: t.content });
    }
  }
  return out.filter((t) => t.user_query.trim() !== '' || t.response);
}
