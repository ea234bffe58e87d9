import type { FastifyRequest } from 'fastify';
import { HttpError, badRequest } from './errors.ts';

/** A multipart form read whole: its text fields and the one file it may carry. */
export interface ReadForm {
  fields: Record<string, string>;
  file?: { name: string; data: Buffer };
}

export interface FormLimits {
  /** The only form field that may carry a file. */
  fileField: string;
  /** Largest file, in bytes. */
  maxFileBytes: number;
  /** Text fields at most (default 50) and the largest text field in bytes (default 1 MiB). */
  maxFields?: number;
  maxFieldBytes?: number;
  /** How the refusal of a too-large file names the file and its limit, e.g. "the zip is larger than 64 MiB". */
  tooLarge: string;
}

/**
 * Reads a multipart/form-data request defensively: a body that is not multipart, is cut short or malformed, has a
 * file in another field, two files, a text field where the file belongs, too many or too large fields, answers
 * 400 (413 for a too-large file) with a message the console can show, never 500.
 */
export async function readForm(req: FastifyRequest, limits: FormLimits): Promise<ReadForm> {
  if (!req.isMultipart())
    throw badRequest(`send the request as multipart/form-data with the file in the field "${limits.fileField}"`);
  const fields: Record<string, string> = {};
  let file: ReadForm['file'];
  const maxFieldBytes = limits.maxFieldBytes ?? 1024 * 1024;
  try {
    const parts = req.parts({
      limits: {
        fileSize: limits.maxFileBytes,
        files: 1,
        fields: limits.maxFields ?? 50,
        fieldSize: maxFieldBytes,
        parts: (limits.maxFields ?? 50) + 1,
      },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        const data = await part.toBuffer();
        if (part.fieldname !== limits.fileField)
          throw badRequest(
            `unexpected file in the field "${part.fieldname}"; send it in the field "${limits.fileField}"`,
          );
        file = { name: part.filename, data };
      } else {
        if (part.fieldname === limits.fileField) throw badRequest(`the field "${limits.fileField}" must be a file`);
        if (part.valueTruncated)
          throw badRequest(`the field "${part.fieldname}" is larger than ${maxFieldBytes} bytes`);
        fields[part.fieldname] = String(part.value);
      }
    }
  } catch (err) {
    throw formError(err, limits);
  }
  return { fields, file };
}

function formError(err: unknown, limits: FormLimits): HttpError {
  if (err instanceof HttpError) return err;
  const e = err as { code?: string; message?: string };
  const code = e.code ?? '';
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new HttpError(413, limits.tooLarge);
  if (code === 'FST_FILES_LIMIT') return badRequest(`send one file only, in the field "${limits.fileField}"`);
  if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT')
    return badRequest(`the form has too many fields (at most ${limits.maxFields ?? 50})`);
  if (code === 'FST_PROTO_VIOLATION') return badRequest('the form uses a field name that is not allowed');
  return badRequest(`the multipart form could not be read: ${e.message ?? String(err)}`);
}
