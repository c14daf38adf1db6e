/**
 * The group A wire (OpenAI chat completions) as the gateway's REST clients speak it to the gateway
 * (clients/models, the chat proxy's peer services/chat/peers/models.ts): the request's mapping from
 * the neutral call and the answer's decoder, the same the gateway uses with the vendors that speak
 * it. Clients import them from here, never from a vendor's or the upstream's own files.
 */
export { chatBody, openAiMessages, openAiTool, openAiChunk, openAiCompletion } from './vendors/openai';
export { chatStreamOf } from './upstream/chat-stream';
