import type { ProviderFactory } from '.';

/** PLACEHOLDER: replaced by the adapter. */
export const azureOpenAiProvider: ProviderFactory = () => ({});
