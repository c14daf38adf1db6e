import { z } from 'zod';
import { CONTEXT, failures, QUESTION } from './docs';
import { BedrockError } from './docs-bedrock';
import type { OperationDocs } from '../shared/routes';

/** CountTokens and the embedding bodies of InvokeModel in OpenAPI. */
const errors = failures(BedrockError);
const modelId = { description: 'A model of the catalog (its id, %-escaped)', example: 'local-chat' };

export const countTokensDocs = (body: z.ZodType): OperationDocs => ({
  params: { modelId },
  body: {
    content: { 'application/json': body },
    example: { input: { converse: { system: [{ text: CONTEXT }], messages: [{ role: 'user', content: [{ text: QUESTION }] }] } } },
    description:
      "`input.converse` (a Converse request's messages, system and toolConfig) or `input.invokeModel.body` (base64 of a native InvokeModel body).",
  },
  responses: { 200: { description: "The prompt's tokens", schema: z.object({ inputTokens: z.int() }) }, ...errors },
});
