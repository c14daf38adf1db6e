/**
 * How a model's answer finished (the models service's FinishReason; a shared file names no service,
 * so the reasons are spelled here, and indexing this with one the core adds fails to compile), as
 * the subgraphs' FinishReason enum: chat and models define it alike.
 */
export const FINISH = {
  stop: 'STOP',
  length: 'LENGTH',
  content_filter: 'CONTENT_FILTER',
  tool_calls: 'STOP',
  error: 'ERROR',
} as const satisfies Record<string, 'STOP' | 'LENGTH' | 'CONTENT_FILTER' | 'ERROR'>;
