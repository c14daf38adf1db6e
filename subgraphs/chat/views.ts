import type { AnswerChunk, AnswerSource, AnswerStream, SourcesResult } from '../../core/chat/service';
import { FINISH } from '../shared/finish';

/** The chat service's wire values as the subgraph's enums and camelCase fields. */
const category = (c: string) => (c === 'InputFile' ? 'INPUT_FILE' : 'SEARCH');

export const sourceView = (s: AnswerSource) => ({
  citation: s.citation,
  document: { id: s.objectId },
  title: s.title,
  fileName: s.fileName,
  category: category(s.category),
  score: s.score,
  text: s.text,
});

/** A chunk as AnswerChunk: `soFar` is the answer's text up to and including this chunk. */
export const chunkView = (c: AnswerChunk, soFar: string, first?: Pick<AnswerStream, 'sources' | 'model'>) => ({
  response: c.response,
  answerSoFar: soFar,
  generatedSearchText: c.generated_search_text,
  finishReason: c.finish_reason ? FINISH[c.finish_reason] : null,
  sources: first ? first.sources.map(sourceView) : null,
  model: first ? { id: first.model } : null,
});

export function sourcesView({ sources: s }: SourcesResult) {
  const texts = s.all_input_texts;
  const uploads = (s.llm_data as { upload_files?: unknown }).upload_files;
  return {
    query: s.query,
    searchText: s.gen_search_text,
    model: { id: String(s.model_info.modelId) },
    citations: s.citations.map((c) => ({
      citation: c.citation,
      document: { id: c.object_id },
      title: c.title,
      fileName: c.file_name,
      category: category(c.source_category),
      score: c.score,
    })),
    searchTextResult: texts.search_text_result ?? '',
    extractedTextResult: texts.extracted_text_result ?? '',
    context: (s.llm_data as { context?: string }).context ?? '',
    uploadFiles: Array.isArray(uploads) ? uploads.filter((f): f is string => typeof f === 'string') : [],
    numNewUploads: s.num_new_uploads,
    history: s.history_prompt.map((t) => ({ userQuery: t.user_query, response: t.response ?? null })),
  };
}
