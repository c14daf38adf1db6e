import type { CatalogModel } from '../../catalog/catalog';
import { httpProvider } from '../../upstream/http-provider';
import type { Env, HttpApi } from '../../upstream/spec';
import { credentialOf, trimBase } from '../credentials';
import { openAiApi } from '../openai/api';

/** Ollama's own address: the usual OpenAI-compatible server of a machine with no vendor account. */
export const DEFAULT_OPENAI_COMPATIBLE_URL = 'http://127.0.0.1:11434/v1';

const VENDOR = 'OpenAI-compatible server';

/**
 * An OpenAI-compatible server (Ollama, vLLM, llama.cpp) as data: `{baseUrl}/{operation}`, the base
 * URL including its `/v1`; `Authorization: Bearer` only when the catalog names a credential.
 */
export const openAiCompatibleApi = (model: CatalogModel, env: Env): HttpApi =>
  openAiApi({
    vendor: VENDOR,
    url: (operation) => `${trimBase(model.upstream.baseUrl ?? DEFAULT_OPENAI_COMPATIBLE_URL)}/${operation}`,
    auth: (): Record<string, string> => {
      const key = credentialOf(model, env, VENDOR, false);
      return key ? { authorization: `Bearer ${key}` } : {};
    },
    modelInBody: true,
    maxTokensField: 'max_tokens',
  });

export const openAiCompatibleProvider = httpProvider(openAiCompatibleApi);
