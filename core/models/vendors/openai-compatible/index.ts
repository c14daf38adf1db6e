/** An OpenAI-compatible server (Ollama, vLLM, llama.cpp): the OpenAI wire (../openai) at the server's base URL. */
export * from './provider';
