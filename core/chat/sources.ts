import type { HistoryTurn } from './conversation';
import { kvpOf } from './conversation';
import type { GetSourcesBody } from './inputs';
import type { AnswerSource, SourcesResult } from './service';

const block = (s: AnswerSource) => `[${s.citation}] ${s.title || s.fileName || s.objectId}\n${s.text}`;
const joined = (list: AnswerSource[]) => list.map(block).join('\n\n');

/**
 * `get_sources`'s answer (docs/decisions.md): the spec's keys, with `all_input_texts` holding the
 * two results of the concurrent run (`search_text_result`, `extracted_text_result`) and `llm_data`
 * the caller's, its `context` the cited passages and its `upload_files` the files read.
 */
export function sourcesResult(r: {
  body: GetSourcesBody; question: string; searchText: string; history: HistoryTurn[]; files: string[]; sources: AnswerSource[]; model: string;
}): SourcesResult {
  const search = r.sources.filter((s) => s.category === 'search');
  const extracted = r.sources.filter((s) => s.category === 'InputFile');
  const details = r.body.bot_details ?? {};
  const llm: Record<string, unknown> & { upload_files?: unknown[] | null } = details.llm_data ?? {};
  const uploads = [...new Set([...(llm.upload_files ?? []), ...r.files])];
  const info = r.body.model_info ?? {};
  return {
    sources: {
      gen_search_text: r.searchText,
      model_info: { ...info, modelId: r.model },
      examples: kvpOf(r.body.request).examples ?? [],
      query: r.question,
      all_input_texts: { search_text_result: joined(search), extracted_text_result: joined(extracted) },
      llm_data: { ...llm, context: joined(r.sources), upload_files: uploads },
      history_prompt: r.history,
      num_new_uploads: details.num_new_uploads ?? r.files.length,
      citations: r.sources.map((s) => ({
        citation: s.citation, object_id: s.objectId, title: s.title, file_name: s.fileName, source_category: s.category, score: s.score,
      })),
    },
    success: true,
  };
}
