import { z } from 'zod';
import { READ_ROLE, WRITE_ROLE } from '../../core/search/roles';
import type { Caller } from '../../core/shared/auth/caller';
import type { ErrorBody } from '../shared/http-errors';
import { defineFor } from '../shared/routes';

/** A search route: its caller is the bearer token's. */
export const define = defineFor<Caller>();

export const READ = { roles: [READ_ROLE] } as const;
export const WRITE = { roles: [WRITE_ROLE] } as const;

/** DECISIONS: `{"status":"error","message"}`; a 422 is the spec's HTTPValidationError. */
export const searchErrorBody: ErrorBody = (err) => ('issues' in err ? { detail: err.issues } : { status: 'error', message: err.message });

const ErrorEnvelope = z.object({ status: z.literal('error'), message: z.string() });
export const Envelope = z.object({
  status: z.string(),
  message: z.string(),
  result_count: z.int(),
  result: z.array(z.record(z.string(), z.unknown())),
  aggregation: z.record(z.string(), z.unknown()),
  aggregations: z.record(z.string(), z.unknown()),
});
export const DataEnvelope = z.object({ status: z.string(), message: z.string(), data: z.string() });

export const failures = {
  400: { description: 'Request malformed or invalid', schema: ErrorEnvelope },
  401: { description: 'No valid authentication credentials', schema: ErrorEnvelope },
  403: { description: 'Insufficient permissions', schema: ErrorEnvelope },
};
export const notFound = { 404: { description: 'Object not found', schema: ErrorEnvelope } };
