import type { Given } from './service';

/** A metered method's fields: as given (a caller in process), or read by the input's `read` (a door's wire reading). */
export const fieldsOf = <F>(input: Given<F>): F | Promise<F> =>
  typeof (input as { read?: unknown }).read === 'function' ? (input as { read(): F | Promise<F> }).read() : (input as F);
