import { z } from 'zod';
import { EXTRACTABLE, kindOf, UnreadableFile } from '../../core/search/extract';
import { UploadMetadataInput } from '../../core/search/inputs';
import type { FileUpload } from '../../core/search/service';
import type { NewObject } from '../../core/search/types';
import { base64Bytes, decodeBase64 } from '../../core/shared/base64';
import { fileTooLarge, ValidationFailed } from '../../core/shared/errors';
import { parseArgs } from '../shared/args';

/**
 * UploadDocumentInput as the file and metadata `uploadObject` takes (what the REST multipart route
 * hands it): the metadata to the rules of DocumentInput, then the file, cheapest refusals first so
 * a refused upload costs no decoding: a type no reader takes, a size over SEARCH_MAX_UPLOAD_BYTES
 * (read from the base64 text's length), an empty file; then the base64 text, decoded strictly.
 */
const FileArgs = z.object({
  fileName: z.string().min(1).max(1000),
  contentType: z.string().max(255).optional(),
});

const NOT_BASE64 = 'Value should be base64 (RFC 4648: A-Z, a-z, 0-9, + and /, padding optional)';
const invalid = (msg: string) => new ValidationFailed([{ loc: ['input', 'contentBase64'], msg, type: 'value_error' }]);

/** DocumentInput's `isPrivate`, as the system metadata REST takes it in. */
export const privacyOf = (isPrivate: unknown) => (typeof isPrivate === 'boolean' ? { is_private: isPrivate } : undefined);

export async function uploadOf(
  input: Record<string, unknown>,
  maxBytes: number,
): Promise<{ file: FileUpload; metadata: Omit<NewObject, 'content'> }> {
  const { fileName, contentType, contentBase64, isPrivate, ...fields } = input;
  const file = parseArgs(FileArgs, { fileName, contentType }, {}, ['input']);
  const metadata = parseArgs(UploadMetadataInput, { ...fields, systemMetadata: privacyOf(isPrivate) }, {}, ['input']);
  if (!kindOf(file.fileName, file.contentType)) {
    throw new UnreadableFile(file.fileName, `only ${EXTRACTABLE.join(', ')} files can be indexed`);
  }
  const text = typeof contentBase64 === 'string' ? contentBase64 : '';
  const size = base64Bytes(text);
  if (size === undefined) throw invalid(NOT_BASE64);
  if (size > maxBytes) throw fileTooLarge(maxBytes, 'SEARCH_MAX_UPLOAD_BYTES');
  if (size === 0) throw invalid('The file is empty');
  const bytes = await decodeBase64(text);
  if (!bytes) throw invalid(NOT_BASE64);
  return { file: { name: file.fileName, bytes, contentType: file.contentType }, metadata };
}
