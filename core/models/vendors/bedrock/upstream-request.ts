import type {
  ContentBlock,
  ConverseStreamCommandInput,
  Message,
  ToolChoice as BedrockToolChoice,
  ToolConfiguration,
  ToolUseBlock,
} from '@aws-sdk/client-bedrock-runtime';
import { BadRequest } from '../../../shared/errors';
import type { Attachment, ChatMessage, ChatRequest, ResponseFormat } from '../../neutral';
import { argumentsObject, resultObject } from '../tool-calls';

/**
 * The Bedrock Converse shapes the AWS SDK sends (it signs and frames them itself): system messages
 * become `system` blocks, attachments image / document / video blocks with their bytes, tool calls
 * `toolUse` blocks and tool results `toolResult` blocks of the user's turn, tools `toolConfig`.
 */
/** A JSON document as the SDK types it. */
type DocumentType = NonNullable<ToolUseBlock['input']>;

const IMAGE = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' } as const;
const DOCUMENT = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
} as const;
const VIDEO = {
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'video/x-matroska': 'mkv',
  'video/webm': 'webm',
  'video/x-flv': 'flv',
  'video/mpeg': 'mpeg',
  'video/mpg': 'mpg',
  'video/x-ms-wmv': 'wmv',
  'video/3gpp': 'three_gp',
} as const;

const formatOf = <T extends Record<string, string>>(table: T, a: Attachment): T[keyof T] => {
  const f = table[a.mimeType.toLowerCase() as keyof T];
  if (!f) throw new BadRequest(`Bedrock does not take ${a.mimeType} input`, { code: 'unsupported_input' });
  return f;
};

// Bedrock allows letters, digits, single spaces, hyphens, parentheses and square brackets in a document's name, unique per request.
const documentName = (name: string | undefined, used: Set<string>) => {
  const clean =
    (name ?? '')
      .replace(/\.[A-Za-z0-9]+$/, '')
      .replace(/[^A-Za-z0-9\s\-()[\]]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 200) || 'document';
  let unique = clean;
  for (let i = 2; used.has(unique); i++) unique = `${clean} (${i})`;
  used.add(unique);
  return unique;
};

function blockOf(a: Attachment, used: Set<string>): ContentBlock {
  const bytes = Buffer.from(a.data, 'base64');
  if (a.kind === 'image') return { image: { format: formatOf(IMAGE, a), source: { bytes } } };
  if (a.kind === 'Docs') return { document: { format: formatOf(DOCUMENT, a), name: documentName(a.name, used), source: { bytes } } };
  return { video: { format: formatOf(VIDEO, a), source: { bytes } } };
}

function contentOf(m: ChatMessage, used: Set<string>): ContentBlock[] {
  // A tool result answers its call by id; one without an id (a Llama prompt's ipython turn) is the user's text.
  if (m.role === 'tool' && m.toolCallId) {
    const json = resultObject(m.text);
    return [{ toolResult: { toolUseId: m.toolCallId, content: [json ? { json: json as DocumentType } : { text: m.text }] } }];
  }
  return [
    ...(m.text ? [{ text: m.text }] : []),
    ...(m.attachments ?? []).map((a) => blockOf(a, used)),
    ...(m.toolCalls ?? []).map((c): ContentBlock => ({
      toolUse: { toolUseId: c.id, name: c.name, input: argumentsObject(c) as DocumentType },
    })),
  ];
}

const CHOICES: Record<'auto' | 'required' | 'tool', (name: string) => BedrockToolChoice> = {
  auto: () => ({ auto: {} }),
  required: () => ({ any: {} }),
  tool: (name) => ({ tool: { name } }),
};

/**
 * The tools: Converse has no "none", so `none` sends no tools, unless the history holds tool
 * blocks (Converse then wants the toolConfig) and the choice is left to the model.
 */
function toolConfigOf(req: ChatRequest, history: boolean): ToolConfiguration | undefined {
  const choice = req.toolChoice ?? { type: 'auto' };
  if (!req.tools?.length || (choice.type === 'none' && !history)) return undefined;
  return {
    tools: req.tools.map((t) => ({
      toolSpec: {
        name: t.name,
        ...(t.description && { description: t.description }),
        inputSchema: { json: (t.parameters ?? { type: 'object', properties: {} }) as DocumentType },
      },
    })),
    ...(choice.type !== 'none' && { toolChoice: CHOICES[choice.type](choice.type === 'tool' ? choice.name : '') }),
  };
}

/** JSON answers: a schema through Converse's structured output; a JSON object, which has no Converse setting, asked for in the system prompt. */
const JSON_OBJECT = 'Answer with one JSON object and nothing else.';
const outputConfigOf = (f: ResponseFormat | undefined) =>
  f?.type !== 'json_schema'
    ? undefined
    : {
        textFormat: {
          type: 'json_schema' as const,
          structure: {
            jsonSchema: { schema: JSON.stringify(f.schema), name: f.name, ...(f.description && { description: f.description }) },
          },
        },
      };

/** The ConverseStream input. Converse wants user and assistant turns to alternate: consecutive turns of one role (tool results are the user's) are merged. */
export function converseInput(req: ChatRequest): ConverseStreamCommandInput {
  const used = new Set<string>();
  const messages: Message[] = [];
  for (const m of req.messages.filter((x: ChatMessage) => x.role !== 'system')) {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const content = contentOf(m, used);
    if (!content.length) continue;
    const last = messages.at(-1);
    if (last?.role === role) last.content!.push(...content);
    else messages.push({ role, content });
  }
  const system = req.messages.filter((m) => m.role === 'system' && m.text).map((m) => ({ text: m.text }));
  if (req.responseFormat?.type === 'json_object') system.push({ text: JSON_OBJECT });
  const inferenceConfig = {
    ...(req.maxTokens !== undefined ? { maxTokens: req.maxTokens } : {}),
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.topP !== undefined ? { topP: req.topP } : {}),
    ...(req.stop?.length ? { stopSequences: req.stop } : {}),
  };
  const toolConfig = toolConfigOf(
    req,
    req.messages.some((m) => m.role === 'tool' || m.toolCalls?.length),
  );
  const outputConfig = outputConfigOf(req.responseFormat);
  return {
    modelId: req.model,
    messages,
    ...(system.length ? { system } : {}),
    ...(Object.keys(inferenceConfig).length ? { inferenceConfig } : {}),
    ...(toolConfig && { toolConfig }),
    ...(outputConfig && { outputConfig }),
  };
}
