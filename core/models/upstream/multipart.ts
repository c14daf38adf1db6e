import { randomBytes } from 'node:crypto';

/** One part of a multipart/form-data body: a text field, or a file with its name and type. */
export type FormField = string | { filename: string; contentType: string; data: Buffer };

/** Quotes a name or filename for Content-Disposition: the form's own escapes, never a raw quote or line break. */
const quoted = (s: string) => `"${s.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;

/**
 * A multipart/form-data body (RFC 7578) built as one Buffer, so a retry can send it again.
 * Fields left undefined are skipped.
 */
export function multipartBody(fields: Record<string, FormField | undefined>): { body: Buffer; contentType: string } {
  const boundary = `----gateway-${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const head = typeof value === 'string'
      ? `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n`
      : `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}; filename=${quoted(value.filename)}\r\nContent-Type: ${value.contentType.replace(/[\r\n]/g, '')}\r\n\r\n`;
    parts.push(Buffer.from(head), typeof value === 'string' ? Buffer.from(value) : value.data, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
