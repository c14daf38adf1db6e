/**
 * Anthropic's Messages wire, for the doors its SDKs call (rest/models/anthropic*.ts, and Bedrock's
 * Claude invoke): the requests read into the neutral call, the neutral answer written back. The
 * catalog has no Anthropic upstream: no provider here.
 */
export * from './door-request';
export * from './door-answer';
