import { hashingVectors } from '../../../shared/text/embedder';
import type { ModelProvider } from '../../neutral';
import type { Offload } from '../../offload/offload';
import { localChat } from './chat';
import { localImage } from './image';

/**
 * The built-in offline provider: the extractive chat model, the hashing embedder (the search
 * service's default, 1,024 dimensions, so vectors agree), and a picture drawn from the prompt.
 * Nothing leaves the process.
 */
export function localProvider(offload?: Offload): ModelProvider {
  const dimensions = 1024;
  return {
    chat: localChat(offload).chat,
    // Many or long inputs (2,048 texts of a megabyte in all: some 30 ms) in a worker thread.
    embed: async ({ inputs }, signal) => ({
      vectors: offload
        ? await offload.run(
            'embed',
            [inputs, dimensions],
            inputs.reduce((n, t) => n + t.length, 0),
            signal,
          )
        : hashingVectors(inputs, dimensions),
    }),
    generateImage: async (req) => localImage(req),
  };
}
