/**
 * What the chat tests ask about, in process (test/rest/chat) and over a started platform
 * (test/e2e/chat): documents of tenant-a, one secret of tenant-b, and the spec's generate_answer body.
 */
export const DOCS = [
  {
    title: 'Aspirin',
    content:
      'Aspirin reduces fever and relieves mild pain. Aspirin also lowers the risk of blood clots. Its common side effects are stomach upset and heartburn.',
  },
  {
    title: 'Penguins',
    content: 'Emperor penguins breed during the Antarctic winter. The male penguin keeps the egg warm on its feet for about two months.',
  },
  {
    title: 'Volcanoes',
    content: 'A volcano erupts when pressure from magma builds beneath the crust. Basalt lava flows are runny and travel far.',
  },
];

/** Ingested as tenant-b: no answer to tenant-a may quote it. */
export const SECRET_OF_B = {
  title: 'Secret of tenant b',
  content: 'Aspirin is forbidden in tenant b. The tenant b launch code is swordfish.',
};

/** A generate_answer body asking `query` as tenant-a, with `extra` merged in at the top and `request` into `request`. */
export type AskBody = (query: string, extra?: Record<string, unknown>, request?: Record<string, unknown>) => Record<string, unknown>;

/** `token` is tenant-a's raw access token (`request.user_cred.token`), `apiKey` an LM key. */
export const askBody =
  (token: string, apiKey: string): AskBody =>
  (query, extra = {}, request = {}) => ({
    request: {
      user_cred: { token, client: { tenant_id: 'tenant-a' } },
      bot_config: { caller_version: '1' },
      task_process: { service: 'test' },
      kvp: {},
      ...request,
    },
    query,
    api_key: apiKey,
    ...extra,
  });
