import { z } from 'zod';
import { BadRequest } from '../../../shared/errors';
import type { Attachment, ChatMessage, ResponseFormat, ToolCall, ToolChoice, ToolDefinition } from '../../neutral';
import { resultObject } from '../tool-calls';

/**
 * Bedrock's Converse shapes (group C families 2 and 3, `/model/{id}/converse`, and the Nova native
 * body of `/invoke`), read into the provider-neutral ChatMessage (written back by door-answer.ts).
 * `bytes` is base64 text, as the AWS SDKs send blobs in JSON. Unknown fields are ignored, as
 * Bedrock ignores `additionalModelRequestFields` it does not know. Tools pass through:
 * `toolConfig` becomes the call's tools and choice, `toolUse` blocks of assistant turns its tool
 * calls, `toolResult` blocks of user turns its tool results, and `outputConfig`'s JSON schema its
 * response format; the answer's calls come back as `toolUse` blocks (streamed as Bedrock streams
 * them) with stopReason `tool_use`.
 */
const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;
export const Base64 = z.string().refine((s) => BASE64.test(s), 'Input should be base64 text');
const Bytes = z.object({ bytes: Base64 });

const IMAGE_TYPES = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' } as const;
const DOCUMENT_TYPES = {
  pdf: 'application/pdf',
  csv: 'text/csv',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  html: 'text/html',
  txt: 'text/plain',
  md: 'text/markdown',
} as const;
const VIDEO_TYPES = {
  mkv: 'video/x-matroska',
  mov: 'video/quicktime',
  mp4: 'video/mp4',
  webm: 'video/webm',
  flv: 'video/x-flv',
  mpeg: 'video/mpeg',
  mpg: 'video/mpeg',
  wmv: 'video/x-ms-wmv',
  three_gp: 'video/3gpp',
} as const;
const formats = <T extends Record<string, string>>(t: T) => z.enum(Object.keys(t) as [keyof T & string, ...(keyof T & string)[]]);

const ImageBlock = z.object({ format: formats(IMAGE_TYPES), source: Bytes });
const DocumentBlock = z.object({ format: formats(DOCUMENT_TYPES), name: z.string().min(1).max(200), source: Bytes });
const VideoBlock = z.object({ format: formats(VIDEO_TYPES), source: Bytes });
const NAME = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'A tool name is 1 to 64 letters, digits, _ or -');
const JsonObject = z.record(z.string(), z.unknown());
const ToolUseBlock = z.object({ toolUseId: z.string().min(1).max(64), name: NAME, input: z.unknown() });
/** A result's content: text and JSON blocks (images and documents in results are not taken). */
const ToolResultContent = z
  .object({ text: z.string().optional(), json: z.unknown().optional() })
  .refine((c) => (c.text === undefined) !== (c.json === undefined), 'A tool result content block holds text or json');
const ToolResultBlock = z.object({
  toolUseId: z.string().min(1).max(64),
  content: z.array(ToolResultContent),
  status: z.enum(['success', 'error']).optional(),
});
const KINDS = ['text', 'image', 'document', 'video', 'toolUse', 'toolResult'] as const;

/** One part of a message: exactly one of text, image, document, video, toolUse, toolResult (a `cachePoint` marker is accepted and ignored). */
const ContentBlock = z
  .looseObject({
    text: z.string().optional(),
    image: ImageBlock.optional(),
    document: DocumentBlock.optional(),
    video: VideoBlock.optional(),
    toolUse: ToolUseBlock.optional(),
    toolResult: ToolResultBlock.optional(),
  })
  .superRefine((b, ctx) => {
    const keys = Object.keys(b).filter((k) => k !== 'cachePoint');
    const unknown = keys.filter((k) => !(KINDS as readonly string[]).includes(k));
    if (unknown.length)
      ctx.addIssue({
        code: 'custom',
        message: `Unsupported content block ${unknown.join(', ')}: this gateway takes ${KINDS.join(', ')} blocks`,
      });
    else if (keys.length !== 1 && !(keys.length === 0 && 'cachePoint' in b))
      ctx.addIssue({ code: 'custom', message: `A content block holds exactly one of ${KINDS.join(', ')}` });
  });

export const ConverseMessage = z
  .object({ role: z.enum(['user', 'assistant']), content: z.array(ContentBlock).min(1) })
  .superRefine((m, ctx) => {
    const wrong = m.role === 'user' ? 'toolUse' : 'toolResult';
    const at = m.content.findIndex((b) => b[wrong] !== undefined);
    if (at >= 0)
      ctx.addIssue({
        code: 'custom',
        path: ['content', at],
        message: `${wrong} blocks belong in ${m.role === 'user' ? 'assistant' : 'user'} turns`,
      });
  });
const SystemBlock = z.looseObject({ text: z.string().optional() });

const InferenceConfig = z.object({
  maxTokens: z.int().positive().optional(),
  temperature: z.number().min(0).max(1).optional(),
  topP: z.number().min(0).max(1).optional(),
  stopSequences: z.array(z.string()).max(4).optional(),
});

const ToolSpec = z.object({ name: NAME, description: z.string().min(1).optional(), inputSchema: z.object({ json: JsonObject }) });
const ToolConfig = z.object({
  // A cachePoint among the tools is accepted and ignored.
  tools: z
    .array(z.looseObject({ toolSpec: ToolSpec.optional(), cachePoint: z.unknown().optional() }))
    .min(1)
    .max(128),
  toolChoice: z
    .object({ auto: z.object({}).optional(), any: z.object({}).optional(), tool: z.object({ name: NAME }).optional() })
    .refine((c) => Object.keys(c).length === 1, 'toolChoice holds exactly one of auto, any, tool')
    .optional(),
});
const OutputConfig = z.object({
  textFormat: z
    .object({
      type: z.literal('json_schema'),
      structure: z.object({
        jsonSchema: z.object({ schema: z.string().min(2), name: z.string().optional(), description: z.string().optional() }),
      }),
    })
    .optional(),
});

export const ConverseRequest = z.object({
  messages: z.array(ConverseMessage).min(1),
  system: z.array(SystemBlock).optional(),
  inferenceConfig: InferenceConfig.optional(),
  toolConfig: ToolConfig.optional(),
  outputConfig: OutputConfig.optional(),
});
export type ConverseRequest = z.output<typeof ConverseRequest>;

/** Nova's native `/invoke` body: the Converse messages, with its inference names (`max_new_tokens`, `top_p`) or Converse's. */
export const NovaInvokeRequest = ConverseRequest.extend({
  schemaVersion: z.string().optional(),
  inferenceConfig: InferenceConfig.extend({
    max_new_tokens: z.int().positive().optional(),
    top_p: z.number().min(0).max(1).optional(),
    top_k: z.int().min(0).optional(),
  }).optional(),
});

type Block = z.output<typeof ContentBlock>;

function attachmentOf(b: Block): Attachment | undefined {
  if (b.image) return { kind: 'image', mimeType: IMAGE_TYPES[b.image.format], data: b.image.source.bytes.replace(/\s+/g, '') };
  if (b.document)
    return {
      kind: 'Docs',
      mimeType: DOCUMENT_TYPES[b.document.format],
      data: b.document.source.bytes.replace(/\s+/g, ''),
      name: b.document.name,
    };
  if (b.video) return { kind: 'Video', mimeType: VIDEO_TYPES[b.video.format], data: b.video.source.bytes.replace(/\s+/g, '') };
  return undefined;
}

/** A result's content as the tool message's text: its text blocks, its JSON blocks as JSON; an error result says so. */
function resultText(r: NonNullable<Block['toolResult']>): string {
  const text = r.content.map((c) => (c.text !== undefined ? c.text : JSON.stringify(c.json))).join('\n');
  return r.status === 'error' ? `Error: ${text}` : text;
}

/**
 * The system blocks as one system message, then each message with its text joined and its other
 * parts as attachments; an assistant turn's toolUse blocks its tool calls, a user turn's
 * toolResult blocks tool messages (before the turn's own text, if any).
 */
export function converseToChat(body: Pick<ConverseRequest, 'messages' | 'system'>): ChatMessage[] {
  const system = (body.system ?? []).flatMap((s) => (s.text === undefined ? [] : [s.text])).join('\n');
  const out: ChatMessage[] = system ? [{ role: 'system', text: system }] : [];
  const names = new Map<string, string>();
  for (const m of body.messages) {
    const text = m.content.flatMap((b) => (b.text === undefined ? [] : [b.text])).join('\n');
    const attachments = m.content.flatMap((b) => attachmentOf(b) ?? []);
    const toolCalls = m.content.flatMap((b): ToolCall[] =>
      b.toolUse ? [{ id: b.toolUse.toolUseId, name: b.toolUse.name, arguments: JSON.stringify(b.toolUse.input ?? {}) }] : [],
    );
    const results = m.content.flatMap((b) => (b.toolResult ? [b.toolResult] : []));
    toolCalls.forEach((c) => names.set(c.id, c.name));
    for (const r of results)
      out.push({
        role: 'tool',
        text: resultText(r),
        toolCallId: r.toolUseId,
        ...(names.has(r.toolUseId) && { toolName: names.get(r.toolUseId) }),
      });
    if (results.length && !text && !attachments.length) continue;
    out.push({ role: m.role, text, ...(attachments.length ? { attachments } : {}), ...(toolCalls.length ? { toolCalls } : {}) });
  }
  return out;
}

/** toolConfig and outputConfig as the call's tools, choice and response format. */
export function converseTools(body: Pick<ConverseRequest, 'toolConfig' | 'outputConfig'>): {
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  responseFormat?: ResponseFormat;
} {
  const tools = (body.toolConfig?.tools ?? []).flatMap((t) =>
    t.toolSpec
      ? [
          {
            name: t.toolSpec.name,
            ...(t.toolSpec.description && { description: t.toolSpec.description }),
            parameters: t.toolSpec.inputSchema.json,
          },
        ]
      : [],
  );
  const c = body.toolConfig?.toolChoice;
  const toolChoice: ToolChoice | undefined = !tools.length
    ? undefined
    : c?.tool
      ? { type: 'tool', name: c.tool.name }
      : c?.any
        ? { type: 'required' }
        : { type: 'auto' };
  if (toolChoice?.type === 'tool' && !tools.some((t) => t.name === toolChoice.name))
    throw new BadRequest(`toolConfig.toolChoice.tool.name: no tool named '${toolChoice.name}' is in toolConfig.tools`, {
      code: 'invalid_request',
    });
  const json = body.outputConfig?.textFormat?.structure.jsonSchema;
  const schema = json && resultObject(json.schema);
  if (json && !schema)
    throw new BadRequest('outputConfig.textFormat.structure.jsonSchema.schema: Input should be a JSON Schema object as JSON text', {
      code: 'invalid_request',
    });
  return {
    ...(tools.length && { tools, toolChoice }),
    ...(json &&
      schema && {
        responseFormat: {
          type: 'json_schema',
          name: json.name ?? 'response',
          schema,
          ...(json.description && { description: json.description }),
        },
      }),
  };
}
