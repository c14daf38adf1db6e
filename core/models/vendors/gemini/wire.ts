import { z } from 'zod';

/**
 * The Gemini API's wire, typed both ways: the generateContent and batchEmbedContents bodies the
 * provider sends (and a door's callers send, validated by door-request.ts's schemas), and the
 * GenerateContentResponse the provider reads back (checked with the schema below) and a door
 * writes (door-answer.ts).
 */

export interface InlineData {
  mimeType: string;
  data: string;
}
export interface FunctionCall {
  id?: string;
  name: string;
  args?: Record<string, unknown>;
}
export interface FunctionResponse {
  id?: string;
  name: string;
  response: Record<string, unknown>;
}

/** One part of a content: a text, bytes, a function call (with its thought signature) or a function's result. */
export type Part =
  | { text: string; thought?: boolean }
  | { inlineData: InlineData }
  | { functionCall: FunctionCall; thoughtSignature?: string }
  | { functionResponse: FunctionResponse };

export interface Content {
  role: 'user' | 'model';
  parts: Part[];
}

export interface GenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  responseMimeType?: string;
  responseJsonSchema?: Record<string, unknown>;
}

export interface FunctionDeclaration {
  name: string;
  description?: string;
  parametersJsonSchema?: Record<string, unknown>;
}
export interface ToolConfig {
  functionCallingConfig: { mode: 'AUTO' | 'NONE' | 'ANY'; allowedFunctionNames?: string[] };
}

/** What the provider sends to `:generateContent` and `:streamGenerateContent`. */
export interface GenerateContentBody {
  contents: Content[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: { functionDeclarations: FunctionDeclaration[] }[];
  toolConfig?: ToolConfig;
  generationConfig?: GenerationConfig;
}

/** What the provider sends to `:batchEmbedContents`. */
export interface BatchEmbedContentsBody {
  requests: { model: string; content: { parts: { text: string }[] }; outputDimensionality?: number }[];
}

/** A GenerateContentResponse (a whole answer, or one chunk of a stream), as far as the gateway reads it (the rest passes: `role`, `index`, `totalTokenCount`, ...). */
export const GenerateContentResponse = z.object({
  candidates: z
    .array(
      z
        .object({
          content: z
            .object({
              parts: z
                .array(
                  z
                    .object({
                      text: z.string().optional(),
                      thought: z.boolean().optional(),
                      functionCall: z
                        .object({ id: z.string().optional(), name: z.string(), args: z.record(z.string(), z.unknown()).optional() })
                        .loose()
                        .optional(),
                    })
                    .loose(),
                )
                .optional(),
            })
            .loose()
            .optional(),
          finishReason: z.string().optional(),
        })
        .loose(),
    )
    .optional(),
  promptFeedback: z.object({ blockReason: z.string().optional() }).loose().optional(),
  usageMetadata: z
    .object({
      promptTokenCount: z.number().optional(),
      candidatesTokenCount: z.number().optional(),
      thoughtsTokenCount: z.number().optional(),
      /** Of promptTokenCount, those read from a cached content. */
      cachedContentTokenCount: z.number().optional(),
    })
    .loose()
    .optional(),
  error: z.object({ message: z.string().optional() }).loose().optional(),
});
export type GenerateContentResponse = z.input<typeof GenerateContentResponse>;
export type Candidate = NonNullable<GenerateContentResponse['candidates']>[number];

/** What `:batchEmbedContents` answers. */
export const BatchEmbedContentsResponse = z.object({ embeddings: z.array(z.object({ values: z.array(z.number()) })) });
