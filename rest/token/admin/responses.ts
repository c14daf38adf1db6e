import { z } from 'zod';
import type { ResponseSpec } from '../../shared/routes';

/** The admin API's error body: `{"detail": "..."}` (422: the list of problems). */
const Problem = z.object({ detail: z.string() });

/** Failures every token admin route may answer. */
export const refused: Record<number, ResponseSpec> = {
  403: {
    description: 'Not an administrator, or one without the right to this (a realm administrator: platform-admin only)',
    schema: Problem,
  },
  404: { description: 'No such object, or one of a realm this administrator does not administer', schema: Problem },
};

/** What an update may also answer. */
export const updateFailures: Record<number, ResponseSpec> = {
  ...refused,
  409: { description: 'The name is taken, or others are changing the object at this moment', schema: Problem },
  412: { description: 'If-Match names a version the object no longer has: read it again', schema: Problem },
};

/** What a create may also answer. */
export const createFailures: Record<number, ResponseSpec> = {
  ...refused,
  400: { description: 'A value the rules refuse (a name, a URI, lifespans)', schema: Problem },
  409: { description: 'The name is taken', schema: Problem },
};
