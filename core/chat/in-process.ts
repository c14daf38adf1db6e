import { BadRequest } from '../shared/errors';
import type { KeyCaller, ModelsService } from '../models/service';
import type { SearchService } from '../search/service';
import type { AnswerModels, Retrieval } from './ports';

/** The search service of this process, as the user. */
export const inProcessRetrieval = (search: SearchService): Retrieval => ({
  async passages(req, call) {
    const page = await search.passages({
      query: req.query, filters: req.fileNames ? { fileNames: req.fileNames } : {}, offset: 0, limit: req.limit, mode: 'hybrid', rerank: true,
    }, call);
    return page.passages;
  },
});

/**
 * The model gateway of this process, called with the user's LM key, which `keyCaller` (the gateway's
 * own declared credential) turns into its caller: its keys, limits, cache, guardrails and usage apply.
 */
export const inProcessModels = (models: ModelsService, keyCaller: (apiKey: string | undefined) => Promise<KeyCaller>): AnswerModels => {
  const resolve = async (apiKey: string | undefined, id: string) => {
    const caller = await keyCaller(apiKey);
    const model = await models.model({ id }, { caller });
    if (model.kind !== 'chat') throw new BadRequest(`${id} is a ${model.kind} model, not a chat model`, { code: 'model_not_chat' });
    return { caller, model };
  };
  return {
    async open(apiKey, id) {
      const { model } = await resolve(apiKey, id);
      return { id: model.id, contextLength: model.contextLength, maxOutputTokens: model.maxOutputTokens };
    },
    async chat(handle, req, call) {
      const { caller, model } = await resolve(req.apiKey, handle.id);
      return models.chat({
        model, route: req.route, messages: req.messages, temperature: req.temperature, maxTokens: req.maxTokens, stream: req.stream,
        ...(req.tools?.length && { tools: req.tools }),
      }, { ...call, caller });
    },
  };
};
