import type { SourcesQuestion } from './conversation';
import type { AnswerSource, SourcesResult } from './service';

const block = (s: AnswerSource) => `[${s.citation}] ${s.title || s.fileName || s.objectId}\n${s.text}`;
const joined = (list: AnswerSource[]) => list.map(block).join('\n\n');

/**
 * `get_sources`'s answer (docs/decisions.md): the spec's keys, with `all_input_texts` holding the
 * two results of the concurrent run (`search_text_result`, `extracted_text_result`) and `llm_data`
 * the caller's, its `context` the cited passages and its `upload_files` the files read.
 */
export function sourcesResult(r: {
  question: SourcesQuestion;
  asked: string;
  searchText: string;
  sources: AnswerSource[];
  model: string;
}): SourcesResult {
  const q = r.question;
  const search = r.sources.filter((s) => s.category === 'search');
  const extracted = r.sources.filter((s) => s.category === 'InputFile');
  const llm = q.llmData ?? {};
  const uploads = [...new Set([...(llm.upload_files ?? []), ...q.files])];
  return {
    sources: {
      gen_search_text: r.searchText,
      model_info: { ...(q.model.info ?? {}), modelId: r.model },
      examples: q.examples,
      query: r.asked,
      all_input_texts: { search_text_result: joined(search), extracted_text_result: joined(extracted) },
      llm_data: { ...llm, context: joined(r.sources), upload_files: uploads },
      history_prompt: q.history,
      num_new_uploads: q.numNewUploads ?? q.files.length,
      citations: r.sources.map((s) => ({
        citation: s.citation,
        object_id: s.objectId,
        title: s.title,
        file_name: s.fileName,
        source_category: s.category,
        score: s.score,
      })),
    },
    success: true,
  };
}
