import { z } from 'zod';
import { BadRequest, ValidationFailed } from '../../../shared/errors';
import { parseInput } from '../../../shared/validation';
import type { Attachment, ChatMessage, ResponseFormat, ToolCall, ToolChoice, ToolDefinition } from '../../neutral';

/**
 * Gemini's generateContent and embedContent shapes (group B), read into the provider-neutral
 * ChatMessage and written back as GenerateContentResponse objects. Unknown fields are ignored, as
 * are safetySettings (the gateway's guardrails apply instead). Function calling passes through:
 * `functionDeclarations` and `toolConfig` become the call's tools and choice, `functionCall` parts
 * of model turns its tool calls and `functionResponse` parts its tool results; a JSON
 * `responseMimeType` (with `responseSchema` or `responseJsonSchema`) its response format. What
 * would change the answer and cannot be honoured (other tools such as code execution or search,
 * several candidates, a part of another kind) is a 400 naming the field.
 */

/** A 400 in Google's terms: what was wrong, and the fields it was wrong in (`google.rpc.BadRequest`). */
export class InvalidArgument extends BadRequest {
  constructor(readonly fieldViolations: { field: string; description: string }[]) {
    super(fieldViolations.map((v) => `Invalid value at '${v.field}': ${v.description}`).join('; '));
  }
}

/** `contents[0].parts[1].inlineData`, as Google names a field. */
export const fieldPath = (loc: readonly (string | number)[]) =>
  loc.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${p}`)).join('') || 'body';

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);
const kindOf = (mimeType: string): Attachment['kind'] | undefined => {
  if (IMAGE_TYPES.has(mimeType)) return 'image';
  if (mimeType === 'application/pdf') return 'Docs';
  return mimeType.startsWith('video/') ? 'Video' : undefined;
};

// Google accepts standard and URL-safe base64.
const InlineData = z.object({
  mimeType: z
    .string()
    .refine((m) => kindOf(m) !== undefined, 'Unsupported MIME type: send image/png, image/jpeg, image/webp, application/pdf or video/*'),
  data: z.string().regex(/^[A-Za-z0-9+/_\-\s]*={0,2}\s*$/, 'Input should be base64 text'),
});

const NAME = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/,
    'A function name starts with a letter or underscore and holds up to 128 letters, digits, _ . : -',
  );
const JsonObject = z.record(z.string(), z.unknown());
const FunctionCall = z.object({ id: z.string().optional(), name: NAME, args: JsonObject.optional() });
const FunctionResponse = z.object({ id: z.string().optional(), name: NAME, response: JsonObject });
const KINDS = ['text', 'inlineData', 'functionCall', 'functionResponse'] as const;

// Loose, so a part of a kind the gateway cannot take (fileData, executableCode, ...) can be named.
const Part = z
  .looseObject({
    text: z.string().optional(),
    inlineData: InlineData.optional(),
    functionCall: FunctionCall.optional(),
    functionResponse: FunctionResponse.optional(),
  })
  .superRefine((p, ctx) => {
    const kinds = KINDS.filter((k) => p[k] !== undefined);
    if (kinds.length === 1) return;
    const other = Object.keys(p).find((k) => !(KINDS as readonly string[]).includes(k) && k !== 'thought' && k !== 'thoughtSignature');
    const message = kinds.length
      ? `A part holds one of ${KINDS.join(', ')}, not ${kinds.join(' and ')}`
      : `${other ? `'${other}' parts are not supported: ` : ''}a part needs text, inlineData, functionCall or functionResponse`;
    ctx.addIssue({ code: 'custom', message });
  });

// `function` is the role older clients give a turn of function responses.
const Content = z.object({ role: z.enum(['user', 'model', 'function']).optional(), parts: z.array(Part).min(1) });

/** Gemini's Schema (OpenAPI's subset, `type` in capitals as the SDKs send it) or a JSON Schema: either is an object here, converted below. */
const Schema = JsonObject;
const FunctionDeclaration = z.object({
  name: NAME,
  description: z.string().optional(),
  parameters: Schema.optional(),
  parametersJsonSchema: Schema.optional(),
  behavior: z.string().optional(),
  response: z.unknown().optional(),
  responseJsonSchema: z.unknown().optional(),
});
/** A tool: function declarations (other kinds, such as googleSearch or codeExecution, are named and refused). */
const Tool = z.looseObject({ functionDeclarations: z.array(FunctionDeclaration).max(128).optional() }).superRefine((t, ctx) => {
  const other = Object.keys(t).filter((k) => k !== 'functionDeclarations');
  if (other.length)
    ctx.addIssue({ code: 'custom', message: `'${other.join("', '")}' tools are not supported by this gateway: only functionDeclarations` });
});
const ToolConfig = z.object({
  functionCallingConfig: z
    .object({
      mode: z.enum(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED']).optional(),
      allowedFunctionNames: z.array(NAME).min(1).max(128).optional(),
    })
    .optional(),
});

/** A plain string stands for one text part, as the SDKs send it. */
const SystemInstruction = z.preprocess(
  (v) => (typeof v === 'string' ? { parts: [{ text: v }] } : v),
  z.object({ parts: z.array(Part).min(1) }),
);

export const GenerateContentRequest = z.object({
  contents: z.array(Content).min(1),
  systemInstruction: SystemInstruction.optional(),
  generationConfig: z
    .object({
      maxOutputTokens: z.int().positive().optional(),
      temperature: z.number().min(0).max(2).optional(),
      topP: z.number().min(0).max(1).optional(),
      topK: z.int().positive().optional(),
      stopSequences: z.array(z.string()).max(5).optional(),
      candidateCount: z.int().optional(),
      responseMimeType: z.string().optional(),
      responseSchema: Schema.optional(),
      responseJsonSchema: Schema.optional(),
    })
    .optional(),
  safetySettings: z.array(z.unknown()).optional(),
  tools: z.array(Tool).max(16).optional(),
  toolConfig: ToolConfig.optional(),
  cachedContent: z.string().optional(),
});
export type GenerateContentRequest = z.output<typeof GenerateContentRequest>;

export const EmbedContentRequest = z.object({
  content: z.object({ parts: z.array(Part).min(1) }),
  model: z.string().optional(),
  taskType: z.string().optional(),
  title: z.string().optional(),
  outputDimensionality: z.int().positive().optional(),
});
export type EmbedContentRequest = z.output<typeof EmbedContentRequest>;
export const BatchEmbedContentsRequest = z.object({ requests: z.array(EmbedContentRequest).min(1).max(100) });

/** The caller's own data: function arguments and results, and JSON Schemas, keep their keys as sent. */
const VERBATIM = new Set(['args', 'response', 'parametersJsonSchema', 'responseJsonSchema']);

const camel = (k: string) => (k.includes('_') ? k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()) : k);

/**
 * Protobuf's JSON mapping takes `system_instruction` as well as `systemInstruction`: read both
 * (not inside the caller's own data, and a schema's `properties` keep their names). Copies only the
 * objects and arrays that hold such a key, so a body the SDKs sent (camelCase already: a megabyte of
 * function declarations) is read without a new object made.
 */
function camelKeys(v: unknown, names = false): unknown {
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = camelKeys(v[i]);
      if (x !== v[i]) (out ??= v.slice())[i] = x;
    }
    return out ?? v;
  }
  if (!v || typeof v !== 'object') return v;
  const keys = Object.keys(v);
  let entries: [string, unknown][] | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const x = (v as Record<string, unknown>)[k];
    const key = names ? k : camel(k);
    const value = VERBATIM.has(key) && !names ? x : camelKeys(x, !names && key === 'properties');
    if (!entries && (key !== k || value !== x)) entries = keys.slice(0, i).map((j) => [j, (v as Record<string, unknown>)[j]]);
    entries?.push([key, value]);
  }
  // fromEntries: a `__proto__` key stays an own property, as JSON.parse made it.
  return entries ? Object.fromEntries(entries) : v;
}

/** The body against a Gemini schema: a 400 naming every bad field. */
export function geminiBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  try {
    return parseInput(schema, camelKeys(body ?? {}));
  } catch (err) {
    if (!(err instanceof ValidationFailed)) throw err;
    throw new InvalidArgument(err.issues.map((i) => ({ field: fieldPath(i.loc), description: i.msg })));
  }
}

type PartOf = z.output<typeof Part>;
const textOf = (parts: readonly PartOf[]) => parts.flatMap((p) => (p.text !== undefined ? [p.text] : [])).join('\n');
const attachmentOf = (p: PartOf): Attachment | undefined =>
  p.inlineData && {
    kind: kindOf(p.inlineData.mimeType)!,
    mimeType: p.inlineData.mimeType,
    data: p.inlineData.data.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/'),
  };

/** Text parts only (system instructions, embedded content): 400 naming the first other part. */
export function textOnly(parts: readonly PartOf[], field: string): string {
  const at = parts.findIndex((p) => p.text === undefined);
  if (at >= 0) throw new InvalidArgument([{ field: `${field}.parts[${at}]`, description: 'Only text parts are accepted here' }]);
  return textOf(parts);
}

/**
 * A Gemini Schema as JSON Schema: its capital types in lower case, `nullable` as a `null` type,
 * `propertyOrdering` dropped. A schema already in JSON Schema's terms passes unchanged.
 */
export function jsonSchemaOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(jsonSchemaOf);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema as Record<string, unknown>)) {
    if (k === 'propertyOrdering' || k === 'nullable') continue;
    if (k === 'type' && typeof v === 'string') out.type = v.toLowerCase();
    else if (k === 'properties' && v && typeof v === 'object')
      out.properties = Object.fromEntries(Object.entries(v).map(([n, x]) => [n, jsonSchemaOf(x)]));
    else if (k === 'items' || k === 'anyOf') out[k] = jsonSchemaOf(v);
    else out[k] = v;
  }
  if ((schema as { nullable?: unknown }).nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

type Body = GenerateContentRequest;

function toolsOf(body: Body): { tools?: ToolDefinition[]; toolChoice?: ToolChoice } {
  const declared = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
  const cfg = body.toolConfig?.functionCallingConfig;
  const allowed = cfg?.allowedFunctionNames;
  const unknown = allowed?.find((n) => !declared.some((d) => d.name === n));
  if (unknown)
    throw new InvalidArgument([
      { field: 'toolConfig.functionCallingConfig.allowedFunctionNames', description: `No function named '${unknown}' is declared` },
    ]);
  const tools = declared
    .filter((d) => !allowed || allowed.includes(d.name))
    .map((d) => {
      const parameters = d.parametersJsonSchema ?? (d.parameters && (jsonSchemaOf(d.parameters) as Record<string, unknown>));
      return { name: d.name, ...(d.description !== undefined && { description: d.description }), ...(parameters && { parameters }) };
    });
  if (!tools.length) return {};
  const mode = cfg?.mode ?? 'AUTO';
  // ANY (and VALIDATED, which also keeps calls to the schema) must call; one allowed function is that function.
  const toolChoice: ToolChoice =
    mode === 'NONE'
      ? { type: 'none' }
      : mode === 'ANY' || mode === 'VALIDATED'
        ? allowed?.length === 1
          ? { type: 'tool', name: allowed[0] }
          : { type: 'required' }
        : { type: 'auto' };
  return { tools, toolChoice };
}

function responseFormatOf(cfg: NonNullable<Body['generationConfig']>): ResponseFormat | undefined {
  const mime = cfg.responseMimeType;
  if (!mime || mime === 'text/plain') {
    if (cfg.responseSchema || cfg.responseJsonSchema) {
      throw new InvalidArgument([
        { field: 'generationConfig.responseMimeType', description: 'A response schema needs responseMimeType application/json' },
      ]);
    }
    return undefined;
  }
  if (mime !== 'application/json') {
    throw new InvalidArgument([
      {
        field: 'generationConfig.responseMimeType',
        description: 'Only text/plain and application/json answers are supported by this gateway',
      },
    ]);
  }
  const schema = cfg.responseJsonSchema ?? (cfg.responseSchema && jsonSchemaOf(cfg.responseSchema));
  return schema ? { type: 'json_schema', name: 'response', schema: schema as Record<string, unknown> } : { type: 'json_object' };
}

/** A function's result as the tool message's text: a lone `output` (or `result`) string as it is, else the object's JSON. */
function resultText(response: Record<string, unknown>): string {
  const keys = Object.keys(response);
  const only = keys.length === 1 ? response[keys[0]] : undefined;
  return (keys[0] === 'output' || keys[0] === 'result') && typeof only === 'string' ? only : JSON.stringify(response);
}

/**
 * The turns as chat messages: a model turn's functionCall parts its tool calls (a call without
 * Gemini's id gets one), a user turn's functionResponse parts tool results answering the call of
 * that id, else the earliest unanswered call of that name.
 */
function messagesOf(contents: Body['contents']): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const unanswered: ToolCall[] = [];
  contents.forEach((c, ci) => {
    const attachments = c.parts.flatMap((p) => attachmentOf(p) ?? []);
    const text = textOf(c.parts);
    if (c.role === 'model') {
      const toolCalls = c.parts.flatMap((p, pi) =>
        p.functionCall
          ? [
              {
                id: p.functionCall.id ?? `call_${ci}_${pi}`,
                name: p.functionCall.name,
                arguments: JSON.stringify(p.functionCall.args ?? {}),
              },
            ]
          : [],
      );
      unanswered.push(...toolCalls);
      messages.push({
        role: 'assistant',
        text,
        ...(attachments.length ? { attachments } : {}),
        ...(toolCalls.length ? { toolCalls } : {}),
      });
      return;
    }
    c.parts.forEach((p, pi) => {
      if (p.functionCall)
        throw new InvalidArgument([
          { field: `contents[${ci}].parts[${pi}].functionCall`, description: 'Only model turns hold function calls' },
        ]);
      const r = p.functionResponse;
      if (!r) return;
      const at = unanswered.findIndex((u) => (r.id ? u.id === r.id : u.name === r.name));
      const call = at >= 0 ? unanswered.splice(at, 1)[0] : undefined;
      messages.push({ role: 'tool', text: resultText(r.response), toolCallId: r.id ?? call?.id ?? `call_${ci}_${pi}`, toolName: r.name });
    });
    if (text || attachments.length || !c.parts.some((p) => p.functionResponse)) {
      messages.push({ role: 'user', text, ...(attachments.length ? { attachments } : {}) });
    }
  });
  return messages;
}

/** The request as a chat call's input: the system instruction first, `model` turns as the assistant's. */
export function geminiToChat(body: GenerateContentRequest) {
  const cfg = body.generationConfig ?? {};
  if ((cfg.candidateCount ?? 1) !== 1)
    throw new InvalidArgument([{ field: 'generationConfig.candidateCount', description: 'Only candidateCount = 1 is supported' }]);
  if (body.cachedContent)
    throw new InvalidArgument([{ field: 'cachedContent', description: 'Cached content is not supported by this gateway' }]);
  const responseFormat = responseFormatOf(cfg);
  const system = body.systemInstruction ? textOnly(body.systemInstruction.parts, 'systemInstruction') : '';
  const messages: ChatMessage[] = [...(system ? [{ role: 'system' as const, text: system }] : []), ...messagesOf(body.contents)];
  return {
    messages,
    maxTokens: cfg.maxOutputTokens,
    temperature: cfg.temperature,
    topP: cfg.topP,
    stop: cfg.stopSequences,
    ...toolsOf(body),
    ...(responseFormat && { responseFormat }),
  };
}
