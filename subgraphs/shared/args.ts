import type { z } from 'zod';
import { ValidationFailed } from '../../core/shared/errors';
import { parseInput } from '../../core/shared/validation';

/**
 * GraphQL arguments validated with the service's own input schema (the one REST uses), so the same
 * bad value is refused for the same reason: 422 on REST, BAD_USER_INPUT here. Arguments are
 * camelCase and the schemas speak the spec's wire names: `names` maps wire → argument, and issues
 * are located at the argument (`["input", "clientId"]`). GraphQL's null means absent.
 */
export function parseArgs<S extends z.ZodType>(
  schema: S,
  wire: Record<string, unknown>,
  names: Record<string, string> = {},
  prefix: string[] = [],
): z.output<S> {
  const present = Object.fromEntries(Object.entries(wire).filter(([, v]) => v !== null && v !== undefined));
  try {
    return parseInput(schema, present);
  } catch (err) {
    if (!(err instanceof ValidationFailed)) throw err;
    throw new ValidationFailed(err.issues.map((i) => ({ ...i, loc: [...prefix, ...i.loc.map((p) => names[String(p)] ?? p)] })));
  }
}
