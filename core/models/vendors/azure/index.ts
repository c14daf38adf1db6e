/** Azure OpenAI: the OpenAI wire (../openai) at Azure's deployment addresses with its `api-key`. Its doors speak the OpenAI wire. */
export * from './provider';
