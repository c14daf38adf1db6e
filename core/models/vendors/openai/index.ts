/**
 * The OpenAI wire, both ways: chat completions, embeddings and the Responses API as our doors read
 * them (door-request, responses-request, embedding-input) and answer them (door-answer,
 * responses-answer); chat completions as our providers send them (upstream-request) and read them
 * back (upstream-answer); the provider data shared by Azure and the OpenAI-compatible servers (api).
 */
export * from './door-request';
export * from './door-answer';
export * from './responses-request';
export * from './responses-answer';
export * from './embedding-input';
export * from './upstream-request';
export * from './upstream-answer';
export * from './api';
