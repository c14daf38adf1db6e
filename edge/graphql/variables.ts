import { BadRequest } from '../../core/shared/errors';
import { JsonTooDeep, jsonTextTooDeep, MAX_JSON_DEPTH, valueTooDeep } from '../../core/shared/json-depth';

/**
 * Bounds on an operation's variables, checked before anything parses, coerces, plans or forwards
 * them: graphql-js coerces input values recursively and the gateway serialises them for subgraphs,
 * so a variable nested a few thousand levels deep overflowed the stack (an unlogged
 * INTERNAL_SERVER_ERROR). Every transport passes here: HTTP POST and GET, multipart, GraphQL over
 * SSE and graphql-ws (through the document guard), at the gateway and on a subgraph served alone.
 * - depth: MAX_JSON_DEPTH, the platform's one bound on JSON nesting;
 * - size: at most `maxValues` values (each object, array, string, number, boolean or null counts
 *   one), a bound on the work of coercing them; the byte size is the body's limit.
 */
export class VariablesTooLarge extends BadRequest {
  constructor(readonly limit: number) {
    super(`The variables hold more than ${limit} values, the limit (GRAPHQL_MAX_VARIABLE_VALUES)`, { code: 'variables_too_large' });
  }
}

/** Throws JsonTooDeep (checked first) or VariablesTooLarge when `variables` (a parsed value) is past a bound; without recursion. */
export function boundVariables(variables: unknown, maxValues: number): void {
  if (variables === null || typeof variables !== 'object') return;
  if (valueTooDeep(variables)) throw new JsonTooDeep(MAX_JSON_DEPTH, 'A variable');
  const stack: object[] = [variables];
  let values = 1;
  while (stack.length) {
    const value = stack.pop()!;
    const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
    values += children.length;
    if (values > maxValues) throw new VariablesTooLarge(maxValues);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push(child);
  }
}

/**
 * The same bounds on variables sent as JSON text (a GET's `variables` parameter): the text is
 * scanned before it is parsed. Text that is not JSON is left to the GraphQL server, which refuses it.
 */
export function boundVariablesText(text: string, maxValues: number): void {
  if (jsonTextTooDeep(text)) throw new JsonTooDeep(MAX_JSON_DEPTH, 'A variable');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return;
  }
  boundVariables(parsed, maxValues);
}

/**
 * The bounds for one request as the document guard reads it: variables parsed (a POST body, a
 * graphql-ws message) or as JSON text (a GET); a GET's `extensions` text is bounded in depth too.
 */
export function boundRequestJson(variables: unknown, extensions: unknown, maxValues: number): void {
  if (typeof variables === 'string') boundVariablesText(variables, maxValues);
  else boundVariables(variables, maxValues);
  if (typeof extensions === 'string' && jsonTextTooDeep(extensions)) throw new JsonTooDeep(MAX_JSON_DEPTH, 'The extensions parameter');
}
