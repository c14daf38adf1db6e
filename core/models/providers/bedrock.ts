import type { ProviderFactory } from '.';

/** PLACEHOLDER: replaced by the adapter. */
export const bedrockProvider: ProviderFactory = () => ({});
