import { z } from 'zod';
import type { ModelChoice, Question, SourcesQuestion } from '../../core/chat/conversation';
import { MAX_FILES, MAX_TURNS, rules } from '../../core/chat/inputs';
import { parseArgs } from '../shared/args';

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

/** AskInput held to the REST bodies' field rules (core/chat/inputs.ts), issues located at `input`. */
const AskArgs = z.object({
  query: rules.query().check(z.refine((q) => q.trim() !== '', { message: 'Field required: query', params: { type: 'missing' } })),
  tenantId: rules.tenantId().optional(),
  history: z
    .array(z.object({ userQuery: rules.query(), response: rules.context() }))
    .max(MAX_TURNS)
    .optional(),
  prevContext: rules.context(),
  files: z.array(rules.fileName()).max(MAX_FILES).optional(),
  prompt: rules.context(),
  modelId: rules.modelId(),
  modelVersion: rules.modelVersion(),
  temperature: rules.temperature(),
  maxTokens: rules.maxTokens(),
  genSearchText: rules.searchText(),
});

const modelOf = (a: z.output<typeof AskArgs>): ModelChoice => {
  const info = Object.fromEntries(
    Object.entries({ modelId: a.modelId, modelVersion: a.modelVersion, temperature: a.temperature, max_tokens: a.maxTokens }).filter(
      ([, v]) => v !== null && v !== undefined,
    ),
  );
  return {
    id: a.modelId ?? undefined,
    temperature: a.temperature ?? undefined,
    maxTokens: a.maxTokens ?? undefined,
    info: Object.keys(info).length ? info : undefined,
  };
};

/** The question of `answerStream` and `generateAnswer`: AskInput mapped straight to the chat domain's input. */
export function questionOf(input: AskInput): Question {
  const a = parseArgs(AskArgs, { ...input }, {}, ['input']);
  return {
    tenantId: a.tenantId,
    query: a.query,
    prevContext: a.prevContext ?? undefined,
    history: (a.history ?? [])
      .map((t) => ({ user_query: t.userQuery, ...(t.response ? { response: t.response } : {}) }))
      .filter((t) => t.user_query.trim() !== '' || t.response),
    files: [...new Set(a.files ?? [])],
    examples: [],
    instructions: a.prompt ?? undefined,
    searchText: a.genSearchText ?? undefined,
    model: modelOf(a),
  };
}

/** The question of `sources` (no instructions or search text: those shape answers only). */
export function sourcesQuestionOf(input: AskInput): SourcesQuestion {
  const { instructions: _i, searchText: _s, ...q } = questionOf(input);
  return q;
}
