import { z } from 'zod';
import { ValidationFailed, type ValidationIssue } from './errors';

/**
 * Input validation shared by every face: zod issues become the spec's `ValidationError` items in
 * FastAPI / pydantic v2 wording, so REST answers 422 and GraphQL answers BAD_USER_INPUT for the
 * same input and the same reason. The transport says where a value was looked for (`loc` prefix).
 */
type Issue = z.core.$ZodIssue & { input?: unknown };

const quote = (v: unknown) => `'${String(v)}'`;
const orList = (vals: readonly unknown[]) =>
  vals.length > 1 ? `${vals.slice(0, -1).map(quote).join(', ')} or ${quote(vals.at(-1))}` : quote(vals[0]);

/** Turns one zod issue into pydantic's type and message. */
export function pydanticIssue(issue: Issue, loc: (string | number)[]): ValidationIssue {
  const at = (type: string, msg: string): ValidationIssue => ({ loc, msg, type });
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return at('missing', 'Field required');
      const parsing = typeof issue.input === 'string';
      switch (issue.expected) {
        case 'string':
          return at('string_type', 'Input should be a valid string');
        case 'int':
          return parsing
            ? at('int_parsing', 'Input should be a valid integer, unable to parse string as an integer')
            : at('int_type', 'Input should be a valid integer');
        case 'number':
          return parsing
            ? at('float_parsing', 'Input should be a valid number, unable to parse string as a number')
            : at('float_type', 'Input should be a valid number');
        case 'boolean':
          return parsing
            ? at('bool_parsing', 'Input should be a valid boolean, unable to interpret input')
            : at('bool_type', 'Input should be a valid boolean');
        case 'array':
          return at('list_type', 'Input should be a valid list');
        case 'object':
        case 'record':
          return loc.length === 1
            ? at('model_attributes_type', 'Input should be a valid dictionary or object to extract fields from')
            : at('dict_type', 'Input should be a valid dictionary');
        default:
          return at(`${issue.expected}_type`, `Input should be a valid ${issue.expected}`);
      }
    }
    case 'invalid_format':
      if (issue.format === 'uuid' || issue.format === 'guid') return at('uuid_parsing', 'Input should be a valid UUID');
      if (issue.format === 'regex')
        return at('string_pattern_mismatch', `String should match pattern '${(issue as { pattern?: string }).pattern ?? ''}'`);
      return at(`${issue.format}_parsing`, `Input should be a valid ${issue.format}`);
    case 'too_small':
      if (issue.origin === 'string')
        return at('string_too_short', `String should have at least ${issue.minimum} character${Number(issue.minimum) === 1 ? '' : 's'}`);
      if (issue.origin === 'array')
        return at('too_short', `List should have at least ${issue.minimum} item${Number(issue.minimum) === 1 ? '' : 's'}`);
      return issue.inclusive
        ? at('greater_than_equal', `Input should be greater than or equal to ${issue.minimum}`)
        : at('greater_than', `Input should be greater than ${issue.minimum}`);
    case 'too_big':
      if (issue.origin === 'string') return at('string_too_long', `String should have at most ${issue.maximum} characters`);
      if (issue.origin === 'array') return at('too_long', `List should have at most ${issue.maximum} items`);
      return issue.inclusive
        ? at('less_than_equal', `Input should be less than or equal to ${issue.maximum}`)
        : at('less_than', `Input should be less than ${issue.maximum}`);
    case 'invalid_value':
      return at(issue.values.length === 1 ? 'literal_error' : 'enum', `Input should be ${orList(issue.values)}`);
    case 'unrecognized_keys':
      return at('extra_forbidden', 'Extra inputs are not permitted');
    case 'custom':
      return at(String((issue.params as { type?: string } | undefined)?.type ?? 'value_error'), issue.message);
    default:
      return at('value_error', issue.message);
  }
}

const keyPath = (path: PropertyKey[]) => path.map((p) => (typeof p === 'number' ? p : String(p)));

/** The issues of `data` against `schema`, each located by `where(path)`; the parsed value when none. */
export function check<S extends z.ZodType>(
  schema: S,
  data: unknown,
  where: (path: (string | number)[]) => (string | number)[],
  issues: ValidationIssue[],
): z.output<S> | undefined {
  const result = schema.safeParse(data, { reportInput: true });
  if (result.success) return result.data;
  for (const issue of result.error.issues) issues.push(pydanticIssue(issue, where(keyPath(issue.path))));
  return undefined;
}

/** Parses `data` or throws ValidationFailed listing every problem, located under `prefix`. */
export function parseInput<S extends z.ZodType>(schema: S, data: unknown, prefix: (string | number)[] = []): z.output<S> {
  const issues: ValidationIssue[] = [];
  const value = check(schema, data, (p) => [...prefix, ...p], issues);
  if (issues.length) throw new ValidationFailed(issues);
  return value as z.output<S>;
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
