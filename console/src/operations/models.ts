import { operation } from './operation';

export const MODEL_FIELDS = `id group kind status source active version contextLength maxOutputTokens dimensions inputKinds
  upstream { provider baseUrl model credentialEnv region apiVersion } price { inputPerMillion outputPerMillion }
  deployments { deployment provider baseUrl model region credentialEnv apiVersion weight rpm state coolingUntil inFlight latencyMs }`;
export const MODELS = operation(`query ConsoleModels($active: Boolean, $source: String, $after: String) {
  adminModels(active: $active, source: $source, first: 25, after: $after, sort: "id") { items { ${MODEL_FIELDS} } nextCursor total }
}`);
export const PUT = operation(`mutation ConsolePutModel($id: ID!, $entry: JSONObject!, $version: Int) {
  adminPutModel(id: $id, entry: $entry, version: $version) { ${MODEL_FIELDS} }
}`);
export const DEACTIVATE = operation(
  `mutation ConsoleDeactivateModel($id: ID!, $version: Int) { adminDeactivateModel(id: $id, version: $version) { ${MODEL_FIELDS} } }`,
);

export const CHAT_MODELS = operation(`query ConsoleChatModels { adminModels(active: true, first: 200, sort: "id") { items { id kind } } }`);
export const STREAM = operation(`subscription ConsoleTryModel($input: ChatInput!) {
  chatStream(input: $input) { content contentSoFar finishReason cached guard model { id } usage { promptTokens completionTokens totalTokens } }
}`);
