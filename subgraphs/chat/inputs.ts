import type { z } from 'zod';
import type { Caller } from '../../core/shared/auth/caller';
import { GenerateAnswerBody, GetSourcesBody } from '../../core/chat/inputs';
import { ValidationFailed } from '../../core/shared/errors';
import { parseInput } from '../../core/shared/validation';

/** `AskInput` as GraphQL hands it over: null means absent. */
export interface AskInput {
  query: string;
  tenantId?: string | null;
  history?: { userQuery: string; response?: string | null }[] | null;
  prevContext?: string | null;
  files?: string[] | null;
  prompt?: string | null;
  modelId?: string | null;
  modelVersion?: string | null;
  temperature?: number | null;
  maxTokens?: number | null;
  genSearchText?: string | null;
}

/** The fields of an object that are neither null nor undefined. */
const present = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

/** Wire names → AskInput fields; the containers between them (request, user_cred, kvp, model_info, ...) drop out. */
const FIELDS: Record<string, string> = {
  query: 'query', prompt: 'prompt', gen_search_text: 'genSearchText', prev_context: 'prevContext', tenant_id: 'tenantId', files: 'files',
  history_prompt: 'history', chat_hist: 'history', user_query: 'userQuery', response: 'response',
  modelId: 'modelId', modelVersion: 'modelVersion', temperature: 'temperature', max_tokens: 'maxTokens',
};

/**
 * Where a wire body's issue is in GraphQL terms: `["request","kvp","files",2,"file_name"]` is
 * `["input","files",2]`, `["model_info","max_tokens"]` is `["input","maxTokens"]`. The credentials
 * came from the transport, so their issues name it (`authorization`, `api-key`).
 */
export function inputLoc(loc: readonly (string | number)[]): (string | number)[] {
  if (loc.includes('api_key')) return ['api-key'];
  if (loc.includes('token')) return ['authorization'];
  const out: (string | number)[] = ['input'];
  for (const p of loc) {
    if (typeof p === 'number') out.push(p);
    else if (FIELDS[p]) out.push(FIELDS[p]);
  }
  return out;
}

const relocated = (err: ValidationFailed) => new ValidationFailed(err.issues.map((i) => ({ ...i, loc: inputLoc(i.loc) })));

/** Runs `work`, locating a validation failure it raises (a body the service refused) at the GraphQL input. */
export async function locating<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw err instanceof ValidationFailed ? relocated(err) : err;
  }
}

/** The body checked with the schema REST uses, so a bad value is refused for the same reason (BAD_USER_INPUT here). */
function wire<S extends z.ZodType>(schema: S, body: Record<string, unknown>): z.output<S> {
  try {
    return parseInput(schema, body);
  } catch (err) {
    throw err instanceof ValidationFailed ? relocated(err) : err;
  }
}

/**
 * GenerateAnswerRequest of the caller: `user_cred.token` is the caller's own bearer token (the
 * service verifies it again, as it would a body's) and the tenant is theirs unless the input names
 * one, which must then be theirs too (FORBIDDEN otherwise, as REST's 403).
 */
const request = (a: AskInput, caller: Caller) => present({
  user_cred: { token: caller.bearer, client: { tenant_id: a.tenantId ?? caller.tenantId } },
  prev_context: a.prevContext,
  kvp: a.files ? { files: a.files.map((file_name) => ({ file_name, source_category: 'InputFile' })) } : undefined,
});

const modelInfo = (a: AskInput) => {
  const info = present({ modelId: a.modelId, modelVersion: a.modelVersion, temperature: a.temperature, max_tokens: a.maxTokens });
  return Object.keys(info).length ? info : undefined;
};

const turns = (a: AskInput) => a.history?.map((t) => present({ user_query: t.userQuery, response: t.response }));

/** The body of generate_answer / stream_generate_answer for `a`, asked by `caller` with the LM key `apiKey`. */
export const answerBody = (a: AskInput, caller: Caller, apiKey: string | undefined): GenerateAnswerBody => wire(GenerateAnswerBody, present({
  request: request(a, caller), query: a.query, prompt: a.prompt, history_prompt: turns(a), model_info: modelInfo(a),
  gen_search_text: a.genSearchText, api_key: apiKey,
}));

/** The body of get_sources: the query inside `request`, the history as `chat_hist`; the key only rewrites follow-ups. */
export const sourcesBody = (a: AskInput, caller: Caller, apiKey: string | undefined): GetSourcesBody => wire(GetSourcesBody, present({
  request: { ...request(a, caller), query: a.query }, chat_hist: turns(a), model_info: modelInfo(a), api_key: apiKey,
}));
