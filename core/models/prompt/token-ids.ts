import type * as Cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import { BadRequest } from '../../shared/errors';
import type { CatalogModel } from '../catalog/catalog';

/**
 * Embedding inputs sent as token ids (OpenAI's `input` may be an array of integers, or an array of
 * such arrays): LangChain's OpenAIEmbeddings sends them by default, tokenized with tiktoken's
 * encoding for the model, cl100k_base for text-embedding-ada-002 and -3-small/-large and its
 * fallback for any other name. An upstream on the OpenAI wire gets them as they came; for any other
 * provider (the built-in embedder, Gemini, Bedrock) they are decoded to text with cl100k_base.
 * Their tokens are the ids themselves: counted exactly, without a tokenizer.
 */

/** OpenAI's limit on one request's inputs (the texts' as well). */
export const MAX_EMBEDDING_INPUTS = 2048;

/** A 400 naming the request field at fault (`error.param`), as OpenAI's errors do. */
export class InvalidTokenIds extends BadRequest {
  readonly param = 'input';
  constructor(message: string) {
    super(message, { code: 'invalid_token_id' });
  }
}

/** Inputs given as token ids (their first is an array), else undefined (texts). */
export const tokenIdInputs = (inputs: readonly (string | readonly number[])[]): (readonly number[])[] | undefined =>
  inputs.length && typeof inputs[0] !== 'string' ? (inputs as (readonly number[])[]) : undefined;

/** Each input's tokens (its length), or a 400: an empty input, or one over the model's context length. */
export function tokenIdCounts(model: CatalogModel, ids: readonly (readonly number[])[]): number[] {
  return ids.map((input, i) => {
    if (!input.length) throw new InvalidTokenIds(`Input ${i} is an empty array of token ids.`);
    if (input.length > model.contextLength) {
      throw new BadRequest(`Input ${i} has ${input.length} tokens; the model's maximum is ${model.contextLength}.`, {
        code: 'context_length_exceeded',
      });
    }
    return input.length;
  });
}

let cl100k: typeof Cl100k | undefined;
/** Loaded on the first decode (its vocabulary takes a few hundred milliseconds): in a worker thread when there is one. */
const encoding = () => (cl100k ??= require('gpt-tokenizer/encoding/cl100k_base') as typeof Cl100k);

/** The ids of cl100k_base that stand for text: its 100,256 byte-pair tokens and its special tokens. */
function decodable(id: number): boolean {
  if (id < 100_256) return true;
  try {
    encoding().decode([id]);
    return true;
  } catch {
    return false;
  }
}

export type Decoded = { texts: string[] } | { invalid: { input: number; at: number; id: number } };

/** The texts the ids stand for in cl100k_base, or where the first id that is none of its tokens sits (never throws: it runs in a worker thread). */
export function decodeTokenIds(ids: readonly (readonly number[])[]): Decoded {
  for (let i = 0; i < ids.length; i++) {
    const input = ids[i];
    for (let j = 0; j < input.length; j++) if (!decodable(input[j])) return { invalid: { input: i, at: j, id: input[j] } };
  }
  return { texts: ids.map((input) => encoding().decode(input as number[])) };
}
