/**
 * The Gemini API, both ways: its wire (wire.ts); generateContent and embedContent as our doors read
 * them (door-request) and answer them (door-answer); the neutral call as our provider sends it
 * (upstream-request) and reads it back (upstream-answer); the provider as data (provider).
 */
export * from './wire';
export * from './door-request';
export * from './door-answer';
export * from './upstream-request';
export * from './upstream-answer';
export * from './provider';
