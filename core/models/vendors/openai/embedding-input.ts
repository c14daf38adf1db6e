import { InvalidParam } from './door-request';
import { MAX_EMBEDDING_INPUTS } from '../../prompt/token-ids';

/**
 * OpenAI's embeddings `input`: a string, an array of strings, an array of token ids (integers) or
 * an array of such arrays, at most 2,048 inputs. Read with one loop over the ids (a megabyte of
 * them is some 170,000), each refusal a 400 naming where it is (`input[3][17]`).
 */
export type EmbeddingInputs = string[] | number[][];

/** The largest id taken (int32, GraphQL's Int): vocabularies are far smaller; the model's own is checked when the ids are decoded. */
export const MAX_TOKEN_ID = 2 ** 31 - 1;

const bad = (message: string) => new InvalidParam(message, 'input');

function tokenIds(v: unknown[], where: string): number[] {
  if (!v.length) throw bad(`${where} is empty: give at least one token id, or a string.`);
  for (let j = 0; j < v.length; j++) {
    const id = v[j];
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id > MAX_TOKEN_ID) {
      throw bad(
        `${where}[${j}] is ${JSON.stringify(id) ?? String(id)}: token ids are integers from 0 to ${MAX_TOKEN_ID}, and one input is all token ids or one string.`,
      );
    }
  }
  return v as number[];
}

export function embeddingInputs(input: unknown): EmbeddingInputs {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input))
    throw bad("'input' must be a string, an array of strings, an array of token ids or an array of arrays of token ids.");
  if (!input.length) throw bad("'input' is empty: give at least one input.");
  // One input of token ids: as long as the model's context allows (checked with the model).
  if (typeof input[0] === 'number') return [tokenIds(input, 'input')];
  if (input.length > MAX_EMBEDDING_INPUTS) throw bad(`'input' has ${input.length} inputs; at most ${MAX_EMBEDDING_INPUTS} are taken.`);
  const mixed = (i: number) =>
    bad(
      `input[${i}] is not ${typeof input[0] === 'string' ? 'a string' : 'an array of token ids'}: an array of inputs holds strings only, or arrays of token ids only.`,
    );
  if (typeof input[0] === 'string') {
    const i = input.findIndex((x) => typeof x !== 'string');
    if (i >= 0) throw mixed(i);
    return input as string[];
  }
  return input.map((x, i) => {
    if (!Array.isArray(x)) throw mixed(i);
    return tokenIds(x, `input[${i}]`);
  });
}
