import type { CombinedError } from 'urql';
import type { FinishReason } from '../../ui/spoken';

/** What the chat playground holds: the graph's answer chunks and the conversation's turns. */

export interface Source {
  citation: number;
  title: string;
  fileName: string | null;
  category: 'SEARCH' | 'INPUT_FILE';
  score: number;
  text: string;
  document: { id: string } | null;
}

export interface Chunk {
  response: string;
  generatedSearchText: string;
  finishReason: FinishReason | null;
  model: { id: string } | null;
  sources: Source[] | null;
}

/** One question and its answer as it streamed. */
export interface Turn {
  question: string;
  answer: string;
  sources: Source[];
  model?: string;
  searchText?: string;
  finishReason?: FinishReason;
  state: 'streaming' | 'done' | 'stopped' | 'failed';
  error?: CombinedError | string;
}
