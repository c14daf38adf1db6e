import type { Request } from 'express';
import { z } from 'zod';
import type { Transcript, TranscriptSegment } from '../../core/models/neutral';
import type { CatalogModel } from '../../core/models/catalog/catalog';
import type { ModelsService } from '../../core/models/service';
import type { ErrorBody } from '../shared/http-errors';
import { DEPLOYMENTS, InvalidParam, parseBody, type Door } from './doors';
import { define, lmKey } from './common';
import { imagesDocs, transcriptionsDocs } from './docs-azure';
import { uploadOf } from '../shared/multipart';
import type { Route } from '../shared/routes';

/**
 * Image generation and audio transcription in OpenAI's (and Azure OpenAI's) wire format, one
 * handler each mounted at every door (doors.ts), so the `openai` SDK's `images.generate` and
 * `audio.transcriptions.create` work unchanged, with `OpenAI` and with `AzureOpenAI`.
 * Spec: image generation takes `n` = 1 only. OpenAI's limits: prompts of 4000 characters, audio
 * files of 25 MB in one of its formats (by extension or type).
 */
const SIZES = ['auto', '256x256', '512x512', '1024x1024', '1792x1024', '1024x1792', '1536x1024', '1024x1536'] as const;

const ImageRequest = z.object({
  prompt: z.string().min(1).max(4000),
  model: z.string().nullish(),
  n: z.number().nullish(),
  size: z.enum(SIZES).nullish(),
  quality: z.enum(['standard', 'hd', 'low', 'medium', 'high', 'auto']).nullish(),
  style: z.enum(['vivid', 'natural']).nullish(),
  response_format: z.enum(['url', 'b64_json']).nullish(),
  user: z.string().nullish(),
});

const MAX_AUDIO_BYTES = 25 * 1024 * 1024;
/** The formats OpenAI transcribes, by file extension, and the type each is sent upstream as. */
const AUDIO_TYPES: Record<string, string> = {
  flac: 'audio/flac',
  mp3: 'audio/mpeg',
  mp4: 'audio/mp4',
  mpeg: 'audio/mpeg',
  mpga: 'audio/mpeg',
  m4a: 'audio/mp4',
  oga: 'audio/ogg',
  ogg: 'audio/ogg',
  wav: 'audio/wav',
  webm: 'audio/webm',
};
/** Types a client may send for a file whose name has no known extension. */
const EXTENSION_OF: Record<string, string> = {
  'audio/flac': 'flac',
  'audio/x-flac': 'flac',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/mp4': 'm4a',
  'audio/m4a': 'm4a',
  'audio/x-m4a': 'm4a',
  'video/mp4': 'mp4',
  'video/mpeg': 'mpeg',
  'audio/ogg': 'ogg',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/webm': 'webm',
  'video/webm': 'webm',
};

const TranscriptionFields = z.object({
  model: z.string().optional(),
  temperature: z.coerce.number().min(0).max(1).optional(),
  response_format: z.enum(['json', 'text', 'srt', 'verbose_json', 'vtt']).default('json'),
  language: z
    .string()
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$/)
    .optional(),
  prompt: z.string().max(20_000).optional(),
  stream: z.enum(['true', 'false']).optional(),
});

/** The audio part: its bytes, name (with an extension the upstream can read the format from) and type; 400 for anything else. */
function audioOf(file: { field: string; name: string; bytes: Buffer; contentType: string } | undefined) {
  if (!file || file.field !== 'file') throw new InvalidParam("Field required: 'file' (an audio file, sent as multipart/form-data)", 'file');
  if (!file.bytes.length) throw new InvalidParam('The audio file is empty.', 'file', 'invalid_file_format');
  const extension = /\.([A-Za-z0-9]+)$/.exec(file.name)?.[1]?.toLowerCase() ?? '';
  const type = file.contentType.split(';')[0].trim().toLowerCase();
  if (AUDIO_TYPES[extension])
    return { bytes: file.bytes, filename: file.name, mimeType: EXTENSION_OF[type] ? type : AUDIO_TYPES[extension] };
  if (EXTENSION_OF[type]) return { bytes: file.bytes, filename: `${file.name}.${EXTENSION_OF[type]}`, mimeType: type };
  throw new InvalidParam(
    `Invalid file format. Supported formats: ${Object.keys(AUDIO_TYPES).sort().join(', ')}`,
    'file',
    'invalid_file_format',
  );
}

/** Subtitles need cues: without segments from upstream, one cue holds the whole text, timed by the duration or a speaking pace of 150 words a minute. */
function cuesOf(t: Transcript): TranscriptSegment[] {
  if (t.segments?.length) return t.segments;
  return [{ id: 0, start: 0, end: t.duration ?? t.text.split(/\s+/).filter(Boolean).length / 2.5, text: t.text }];
}

const stamp = (seconds: number, separator: string) => {
  const ms = Math.round(Math.max(0, seconds) * 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(ms / 3_600_000))}:${two(Math.floor(ms / 60_000) % 60)}:${two(Math.floor(ms / 1000) % 60)}${separator}${String(ms % 1000).padStart(3, '0')}`;
};

/** A blank line would end the cue early, and `-->` is reserved in WebVTT. */
const cueText = (text: string) =>
  text
    .trim()
    .replace(/\n\s*\n/g, '\n')
    .replace(/-->/g, '->');
const srt = (t: Transcript) =>
  cuesOf(t)
    .map((c, i) => `${i + 1}\n${stamp(c.start, ',')} --> ${stamp(c.end, ',')}\n${cueText(c.text)}\n\n`)
    .join('');
const vtt = (t: Transcript) =>
  `WEBVTT\n\n${cuesOf(t)
    .map((c) => `${stamp(c.start, '.')} --> ${stamp(c.end, '.')}\n${cueText(c.text)}\n\n`)
    .join('')}`;

/** The multipart parser reads the upload before the handler runs; its 413 is worded here, as OpenAI words it. */
const transcriptionErrorBody =
  (door: Door): ErrorBody =>
  (err, status) =>
    status !== 413
      ? door.errorBody(err, status)
      : {
          error: {
            message: `Maximum content size limit (${MAX_AUDIO_BYTES}) exceeded: audio files may be at most 25 MB.`,
            type: 'invalid_request_error',
            param: 'file',
            code: 'content_size_limit_exceeded',
          },
        };

/** A multipart request skips the route's query validation: read `api-version` here. */
const apiVersionOf = (door: Door, req: Request) => parseBody(door.query, req.query)['api-version'] as string | undefined;

export function imagesRoute(models: ModelsService, door: Door): Route {
  return define({
    method: 'post',
    path: door.path('/images/generations'),
    tags: door.tags,
    summary: 'Image generation (OpenAI wire format; n = 1; a base64 PNG or a data URL)',
    input: { query: door.query, body: z.unknown() },
    credential: lmKey,
    errorBody: door.errorBody,
    docs: imagesDocs(door, ImageRequest),
    responses: { 200: { description: '`{created, data: [{url | b64_json, revised_prompt}]}`' } },
    handle: async (input, { req, ctx }) => {
      const model = await door.modelOf(models, ctx, req, input['api-version'] as string | undefined, input.body);
      const route = `${door.vendor}.images.generations`;
      let body!: z.output<typeof ImageRequest>;
      const image = await models.generateImage(
        {
          model,
          route,
          read: () => {
            body = parseBody(ImageRequest, input.body);
            if ((body.n ?? 1) !== 1) throw new InvalidParam('Only n = 1 is supported for image generation.', 'n');
            const size = body.size === 'auto' ? undefined : (body.size ?? undefined);
            return { prompt: body.prompt, size, quality: body.quality ?? undefined, style: body.style ?? undefined };
          },
        },
        ctx,
      );
      // Azure's dall-e-3 answers a URL by default; the gateway stores nothing to link to, so its URL
      // is a data: URL holding the picture itself (the SDKs and browsers read it like any other).
      const picture = body.response_format === 'b64_json' ? { b64_json: image.b64 } : { url: `data:${image.mimeType};base64,${image.b64}` };
      return { created: Math.floor(Date.now() / 1000), data: [{ ...picture, revised_prompt: image.revisedPrompt ?? body.prompt }] };
    },
  });
}

export function transcriptionsRoute(models: ModelsService, door: Door): Route {
  return define({
    method: 'post',
    path: door.path('/audio/transcriptions'),
    tags: door.tags,
    summary: 'Audio transcription (OpenAI wire format; multipart/form-data with a `file` part up to 25 MB)',
    description: `Fields: \`file\`, ${door.modelInPath ? '' : '`model`, '}\`temperature\`, \`response_format\` (json, text, srt, verbose_json, vtt), \`language\`, \`prompt\`.`,
    input: { query: door.query },
    upload: { maxBytes: MAX_AUDIO_BYTES },
    credential: lmKey,
    errorBody: transcriptionErrorBody(door),
    docs: transcriptionsDocs(door, TranscriptionFields),
    // The key (the router's) and, when the path names it, the model before the upload is read: a
    // stranger cannot make the gateway buffer 25 MB. A model named in the form is checked once it is read.
    before: door.modelInPath ? (req, ctx) => door.modelOf(models, ctx, req, apiVersionOf(door, req), undefined) : undefined,
    responses: {
      200: { description: '`{text}`, verbose JSON with segments, or text, SRT or WebVTT' },
      413: { description: 'Audio file over 25 MB' },
    },
    handle: async (_input, { req, res, ctx, checked }) => {
      const upload = uploadOf(res);
      const model =
        (checked as CatalogModel | undefined) ?? (await door.modelOf(models, ctx, req, apiVersionOf(door, req), upload?.fields));
      const route = `${door.vendor}.audio.transcriptions`;
      let fields!: z.output<typeof TranscriptionFields>;
      const t = await models.transcribe(
        {
          model,
          route,
          read: () => {
            const audio = audioOf(upload?.file);
            fields = parseBody(TranscriptionFields, upload!.fields);
            if (fields.stream === 'true') throw new InvalidParam('Streamed transcriptions are not supported here.', 'stream');
            return {
              audio: audio.bytes,
              filename: audio.filename,
              mimeType: audio.mimeType,
              temperature: fields.temperature,
              language: fields.language,
              prompt: fields.prompt,
            };
          },
        },
        ctx,
      );
      switch (fields.response_format) {
        case 'json':
          return { text: t.text };
        case 'verbose_json':
          return {
            task: 'transcribe',
            language: t.language ?? fields.language ?? null,
            duration: t.duration ?? t.segments?.at(-1)?.end ?? null,
            text: t.text,
            segments: (t.segments ?? []).map((s) => ({ id: s.id, start: s.start, end: s.end, text: s.text })),
          };
        case 'text':
          res.type('text/plain').send(t.text);
          return undefined;
        case 'srt':
          res.type('text/plain').send(srt(t));
          return undefined;
        case 'vtt':
          res.type('text/vtt').send(vtt(t));
          return undefined;
      }
    },
  });
}

/** Group A: the Azure OpenAI deployment paths. */
export const azureMediaRoutes = (models: ModelsService): Route[] => [
  imagesRoute(models, DEPLOYMENTS),
  transcriptionsRoute(models, DEPLOYMENTS),
];
