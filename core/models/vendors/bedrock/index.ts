/**
 * Amazon Bedrock, both ways: Converse and the invoke bodies as our doors read them and answer them
 * (door-request); the neutral call as the ConverseStream input our provider sends (upstream-request)
 * and its events read back (upstream-answer); the provider as data, called through the AWS SDK
 * (provider, upstream/aws-sdk.ts).
 */
export * from './door-request';
export * from './door-answer';
export * from './upstream-request';
export * from './upstream-answer';
export * from './provider';
