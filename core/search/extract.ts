import { extname } from 'node:path';
import { BadRequest } from '../shared/errors';

/**
 * Text out of an uploaded file (DECISIONS: txt, md, html, pdf, docx), with maintained libraries:
 * html-to-text, mammoth (docx) and pdf.js. A file that cannot be read is a 400 naming it; one
 * with no text at all too, since indexing it would find nothing.
 */
export const EXTRACTABLE = ['txt', 'md', 'html', 'pdf', 'docx'] as const;
export type Extractable = (typeof EXTRACTABLE)[number];

export class UnreadableFile extends BadRequest {
  constructor(fileName: string, why: string) {
    super(`Cannot read ${JSON.stringify(fileName.slice(0, 200))}: ${why}`, { code: 'unreadable_file' });
  }
}

const BY_EXTENSION: Record<string, Extractable> = {
  txt: 'txt',
  text: 'txt',
  md: 'md',
  markdown: 'md',
  html: 'html',
  htm: 'html',
  pdf: 'pdf',
  docx: 'docx',
};
const BY_TYPE: Record<string, Extractable> = {
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/html': 'html',
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
};

/** The kind of a file from its extension, else its media type; undefined when it is none we read. */
export function kindOf(fileName: string, contentType?: string): Extractable | undefined {
  const ext = extname(fileName).slice(1).toLowerCase();
  return BY_EXTENSION[ext] ?? BY_TYPE[(contentType ?? '').split(';')[0].trim().toLowerCase()];
}

export interface ExtractOptions {
  /** PDF pages read at most (the rest is ignored, not an error). */
  maxPages?: number;
}

export async function extractText(
  file: { name: string; bytes: Uint8Array; contentType?: string },
  opts: ExtractOptions = {},
): Promise<{ kind: Extractable; text: string }> {
  const kind = kindOf(file.name, file.contentType);
  if (!kind) throw new UnreadableFile(file.name, `only ${EXTRACTABLE.join(', ')} files can be indexed`);
  let text: string;
  try {
    text = await READERS[kind](file.bytes, opts);
  } catch {
    throw new UnreadableFile(file.name, `not a readable ${kind} file`);
  }
  text = text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (!text) throw new UnreadableFile(file.name, 'it contains no text');
  return { kind, text };
}

const utf8 = (bytes: Uint8Array) => new TextDecoder('utf-8', { fatal: true }).decode(bytes);

const READERS: Record<Extractable, (bytes: Uint8Array, opts: ExtractOptions) => Promise<string>> = {
  txt: async (bytes) => utf8(bytes),
  md: async (bytes) => utf8(bytes),
  html: async (bytes) => {
    const { convert } = await import('html-to-text');
    return convert(utf8(bytes), {
      wordwrap: false,
      selectors: [
        { selector: 'a', options: { ignoreHref: true } },
        { selector: 'img', format: 'skip' },
      ],
    });
  },
  docx: async (bytes) => {
    const mammoth = await import('mammoth');
    return (await mammoth.extractRawText({ buffer: Buffer.from(bytes) })).value;
  },
  pdf: async (bytes, opts) => {
    // pdf.js is ESM only; Node 20.19+ loads it from CommonJS (require(esm)).
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    const doc = await pdfjs.getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, useSystemFonts: false, verbosity: 0 })
      .promise;
    try {
      const pages: string[] = [];
      for (let n = 1; n <= Math.min(doc.numPages, opts.maxPages ?? 2000); n++) {
        const content = await (await doc.getPage(n)).getTextContent();
        pages.push(content.items.map((i) => ('str' in i ? i.str : '')).join(' '));
      }
      return pages.join('\n\n');
    } finally {
      await doc.destroy();
    }
  },
};
