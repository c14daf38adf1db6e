import busboy from 'busboy';
import type { NextFunction, Request, Response } from 'express';
import { BadRequest, fileTooLarge, PayloadTooLarge } from '../../core/shared/errors';

/**
 * `multipart/form-data` uploads (busboy): one file part held in memory up to `maxBytes` (413 past
 * it, the rest of the stream drained and dropped), plus small text fields. The result goes to
 * `res.locals.upload`; requests of any other type pass through untouched.
 */
export interface Upload {
  file?: { field: string; name: string; bytes: Buffer; contentType: string };
  fields: Record<string, string>;
}

export interface UploadLimits {
  maxBytes: number;
  /** The setting that sets maxBytes, named in the 413 (none for a fixed limit). */
  setting?: string;
  maxFieldBytes?: number;
}

export const uploadOf = (res: Response): Upload | undefined => res.locals.upload as Upload | undefined;

export function multipart(limits: UploadLimits) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!req.is('multipart/form-data')) return next();
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        limits: { files: 1, fileSize: limits.maxBytes, fields: 20, fieldSize: limits.maxFieldBytes ?? 1_048_576, parts: 22 },
      });
    } catch {
      return next(new BadRequest('Malformed multipart body (no boundary)'));
    }
    const upload: Upload = { fields: {} };
    let failure: Error | undefined;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      if (failure) return next(failure);
      res.locals.upload = upload;
      next();
    };
    const fail = (err: Error) => {
      failure ??= err;
    };
    bb.on('file', (field, stream, info) => {
      const parts: Buffer[] = [];
      stream.on('data', (d: Buffer) => parts.push(d));
      stream.on('limit', () => fail(fileTooLarge(limits.maxBytes, limits.setting)));
      // A body cut off inside the file: busboy reports it on the file's stream.
      stream.on('error', () => fail(new BadRequest('Malformed multipart body')));
      stream.on('close', () => {
        if (!failure && !upload.file)
          upload.file = { field, name: info.filename ?? 'upload', bytes: Buffer.concat(parts), contentType: info.mimeType };
      });
    });
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new PayloadTooLarge(`Field ${JSON.stringify(name)} too large`));
      upload.fields[name] = value;
    });
    bb.on('filesLimit', () => fail(new BadRequest('Send one file per request')));
    bb.on('partsLimit', () => fail(new BadRequest('Too many parts')));
    bb.on('fieldsLimit', () => fail(new BadRequest('Too many fields')));
    bb.on('error', () => {
      fail(new BadRequest('Malformed multipart body'));
      req.unpipe(bb);
      req.resume();
      finish();
    });
    bb.on('close', finish);
    req.pipe(bb);
  };
}
