import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { extractText, kindOf, UnreadableFile } from '../../../core/search/extract';
import { ROOT } from '../../e2e/shared/server';
import { docxWith, pdfWith } from './fixtures';

const file = (name: string, content: string | Buffer, contentType?: string) => ({
  name,
  bytes: typeof content === 'string' ? Buffer.from(content) : content,
  contentType,
});

describe('extractText', () => {
  it('reads plain text and markdown as UTF-8, tidying whitespace and keeping paragraphs', async () => {
    await expect(extractText(file('a.txt', 'Héllo\r\n\r\n\r\n\tworld  again\n'))).resolves.toEqual({
      kind: 'txt',
      text: 'Héllo\n\n world again',
    });
    await expect(extractText(file('notes.MD', '# Title\n\nBody *text*.'))).resolves.toEqual({
      kind: 'md',
      text: '# Title\n\nBody *text*.',
    });
  });

  it('reads HTML without scripts, link targets or images', async () => {
    const { kind, text } = await extractText(
      file(
        'page.html',
        '<h1>Seams</h1><p>One <a href="http://x.test/secret">registry</a>.</p><script>alert(1)</script><img src="a.png" alt="pic">',
      ),
    );
    expect(kind).toBe('html');
    expect(text).toContain('SEAMS');
    expect(text).toContain('One registry.');
    expect(text).not.toMatch(/alert|x\.test|a\.png/);
  });

  it('reads a docx document', async () => {
    const bytes = await docxWith(['First paragraph of the report.', 'Second & last.']);
    await expect(extractText(file('report.docx', bytes))).resolves.toEqual({
      kind: 'docx',
      text: 'First paragraph of the report.\n\nSecond & last.',
    });
  });

  it('takes the kind from the media type when the name has no known extension', () => {
    expect(kindOf('upload', 'application/pdf; charset=binary')).toBe('pdf');
    expect(kindOf('upload.bin', 'text/html')).toBe('html');
    expect(kindOf('upload.bin')).toBeUndefined();
  });

  it.each([
    ['an unknown kind', file('movie.mp4', 'x'), /only txt, md, html, pdf, docx files can be indexed/],
    ['text that is not UTF-8', file('latin.txt', Buffer.from([0x48, 0xe9, 0x6c])), /not a readable txt file/],
    ['a corrupt docx', file('broken.docx', 'not a zip'), /not a readable docx file/],
    ['a file with no text', file('empty.md', ' \n\n '), /contains no text/],
  ])('refuses %s with a 400 naming the file', async (_name, f, why) => {
    const err = await extractText(f).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreadableFile);
    expect((err as UnreadableFile).kind).toBe('bad_request');
    expect((err as UnreadableFile).message).toContain(JSON.stringify(f.name));
    expect((err as UnreadableFile).message).toMatch(why);
  });
});

/** pdf.js is ESM only: run the built extractor in Node itself (jest's module loader does not load it). */
describe('extractText on PDF (the built code, in a Node process)', () => {
  const run = (bytes: Buffer, name: string) =>
    new Promise<{ ok?: unknown; error?: string }>((resolve, reject) => {
      const script = `require(${JSON.stringify(join(ROOT, 'dist', 'core', 'search', 'extract.js'))}).extractText({ name: ${JSON.stringify(name)}, bytes: Buffer.from(process.argv[1], 'base64') })
      .then((r) => console.log(JSON.stringify({ ok: r })), (e) => console.log(JSON.stringify({ error: e.message })))`;
      execFile(process.execPath, ['-e', script, bytes.toString('base64')], (err, stdout) =>
        err ? reject(new Error(err.message)) : resolve(JSON.parse(stdout.trim().split('\n').at(-1)!)),
      );
    });

  it('reads the text of a PDF', async () => {
    expect(await run(pdfWith('Hybrid search finds passages (by meaning).'), 'paper.pdf')).toEqual({
      ok: { kind: 'pdf', text: 'Hybrid search finds passages (by meaning).' },
    });
  });

  it('refuses a corrupt PDF with a message naming it', async () => {
    expect(await run(Buffer.from('%PDF-1.4 garbage'), 'scan.pdf')).toEqual({ error: 'Cannot read "scan.pdf": not a readable pdf file' });
  });
});
