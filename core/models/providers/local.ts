import { hashingEmbedder } from '../../shared/text/embedder';
import type { ModelProvider } from '../chat';
import type { Offload } from '../offload';
import { localChat } from '../local-chat';
import { localImage } from '../local-image';

/**
 * The built-in offline provider: the extractive chat model, the hashing embedder (the search
 * service's default, so vectors agree), and a picture drawn from the prompt. Nothing leaves the process.
 */
export function localProvider(offload?: Offload): ModelProvider {
  const embedder = hashingEmbedder();
  return {
    chat: localChat(offload).chat,
    embed: async ({ inputs }) => ({ vectors: await embedder.embed(inputs) }),
    generateImage: async (req) => localImage(req),
  };
}
