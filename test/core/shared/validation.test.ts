import type { Request } from 'express';
import { z } from 'zod';
import { ValidationFailed, type ValidationIssue } from '../../../core/shared/errors';
import { param } from '../../../core/shared/params';
import { TokenRequest, UserLoginRequest } from '../../../core/token/inputs';
import { parseRequest, type InputSpec } from '../../../rest/shared/validation';

/** A stand-in for the parts of an express Request that parseRequest reads. */
const fakeRequest = (parts: {
  query?: Record<string, unknown>;
  body?: unknown;
  params?: Record<string, string>;
  headers?: Record<string, string>;
}) => ({ query: {}, params: {}, headers: {}, ...parts }) as unknown as Request;

/** The issues parseRequest rejects the request with (fails the test when it accepts it). */
function issuesOf(spec: InputSpec, req: Request): ValidationIssue[] {
  try {
    parseRequest(spec, req);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationFailed);
    return (err as ValidationFailed).issues;
  }
  throw new Error('expected the request to be refused');
}

const query = (shape: z.ZodRawShape, q: Record<string, unknown>) => issuesOf({ query: z.object(shape) }, fakeRequest({ query: q }));
const body = (schema: z.ZodType, b: unknown) => issuesOf({ body: schema }, fakeRequest({ body: b }));

describe('pydantic-shaped issues', () => {
  it('reports an absent required field as missing', () => {
    expect(query({ client_id: param.string() }, {})).toEqual([{ loc: ['query', 'client_id'], msg: 'Field required', type: 'missing' }]);
  });

  it('reports a non-string in a string field as string_type', () => {
    expect(body(z.object({ title: z.string() }), { title: 42 })).toEqual([
      { loc: ['body', 'title'], msg: 'Input should be a valid string', type: 'string_type' },
    ]);
  });

  it('reports query text that is not an integer as int_parsing', () => {
    expect(query({ top_k: param.int() }, { top_k: 'abc' })).toEqual([
      { loc: ['query', 'top_k'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' },
    ]);
  });

  it('reports decimal text in an integer field as int_parsing, not as a float problem', () => {
    expect(query({ top_k: param.int() }, { top_k: '1.5' })[0]?.type).toBe('int_parsing');
  });

  it('reports a typed non-integer as int_type', () => {
    expect(body(z.object({ top_k: param.int() }), { top_k: 1.5 })).toEqual([
      { loc: ['body', 'top_k'], msg: 'Input should be a valid integer', type: 'int_type' },
    ]);
    expect(body(z.object({ top_k: param.int() }), { top_k: true })).toEqual([
      { loc: ['body', 'top_k'], msg: 'Input should be a valid integer', type: 'int_type' },
    ]);
  });

  it('reports unreadable text in a number field as float_parsing', () => {
    expect(query({ score: param.number() }, { score: 'high' })).toEqual([
      { loc: ['query', 'score'], msg: 'Input should be a valid number, unable to parse string as a number', type: 'float_parsing' },
    ]);
  });

  it('reports an absent required integer as missing', () => {
    expect(query({ top_k: param.int() }, {})).toEqual([{ loc: ['query', 'top_k'], msg: 'Field required', type: 'missing' }]);
  });

  it('reports unreadable boolean text as bool_parsing', () => {
    expect(query({ re_ranked: param.bool() }, { re_ranked: 'maybe' })).toEqual([
      { loc: ['query', 're_ranked'], msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing' },
    ]);
  });

  it('reports a malformed UUID as uuid_parsing', () => {
    expect(query({ realm: param.uuid() }, { realm: 'not-a-uuid' })).toEqual([
      { loc: ['query', 'realm'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' },
    ]);
  });

  it('reports a value under an inclusive minimum as greater_than_equal', () => {
    expect(body(z.object({ top_k: z.int().min(1) }), { top_k: 0 })).toEqual([
      { loc: ['body', 'top_k'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' },
    ]);
  });

  it('words an enum refusal as pydantic does', () => {
    expect(query({ mode: z.enum(['a', 'b', 'c']) }, { mode: 'd' })).toEqual([
      { loc: ['query', 'mode'], msg: "Input should be 'a', 'b' or 'c'", type: 'enum' },
    ]);
  });

  it('reports a literal mismatch as literal_error', () => {
    expect(body(z.object({ kind: z.literal('x') }), { kind: 'y' })).toEqual([
      { loc: ['body', 'kind'], msg: "Input should be 'x'", type: 'literal_error' },
    ]);
  });

  it('reports a non-list in a list field as list_type', () => {
    expect(body(z.object({ tags: z.array(z.string()) }), { tags: 'a' })).toEqual([
      { loc: ['body', 'tags'], msg: 'Input should be a valid list', type: 'list_type' },
    ]);
  });

  it('locates a problem inside a list by its index', () => {
    expect(body(z.object({ tags: z.array(z.string()) }), { tags: ['a', 7] })).toEqual([
      { loc: ['body', 'tags', 1], msg: 'Input should be a valid string', type: 'string_type' },
    ]);
  });

  it('lists every problem of a request, not only the first', () => {
    const issues = query({ a: param.string(), b: param.int() }, { b: 'x' });
    expect(issues.map((i) => [i.loc, i.type])).toEqual([
      [['query', 'a'], 'missing'],
      [['query', 'b'], 'int_parsing'],
    ]);
  });
});

describe('query and form parameters', () => {
  it('takes the last value of a repeated scalar key', () => {
    const out = parseRequest(
      { query: z.object({ name: param.string(), n: param.int(), on: param.bool() }) },
      fakeRequest({ query: { name: ['first', 'last'], n: ['1', '2'], on: ['false', 'true'] } }),
    );
    expect(out).toEqual({ name: 'last', n: 2, on: true });
  });

  it('reads integers, numbers and boolean words from text', () => {
    const out = parseRequest(
      { query: z.object({ n: param.int(), x: param.number(), yes: param.bool(), no: param.bool() }) },
      fakeRequest({ query: { n: ' 42 ', x: '0.5', yes: 'on', no: 'F' } }),
    );
    expect(out).toEqual({ n: 42, x: 0.5, yes: true, no: false });
  });

  it('turns a repeated key into a list, and a single value into a one-item list', () => {
    const spec = { query: z.object({ tags: param.array().optional() }) };
    expect(parseRequest(spec, fakeRequest({ query: { tags: ['a', 'b'] } }))).toEqual({ tags: ['a', 'b'] });
    expect(parseRequest(spec, fakeRequest({ query: { tags: 'a' } }))).toEqual({ tags: ['a'] });
    expect(parseRequest(spec, fakeRequest({ query: {} }))).toEqual({});
  });

  it('parses an object parameter sent as JSON text', () => {
    const out = parseRequest({ query: z.object({ kvp: param.object() }) }, fakeRequest({ query: { kvp: '{"team":"blue","n":1}' } }));
    expect(out).toEqual({ kvp: { team: 'blue', n: 1 } });
  });

  it('refuses object text that is not JSON', () => {
    expect(query({ kvp: param.object() }, { kvp: '{not json' })).toEqual([
      { loc: ['query', 'kvp'], msg: 'Input should be a valid dictionary', type: 'dict_type' },
    ]);
  });

  it('validates path parameters and headers under their own locations', () => {
    const issues = issuesOf(
      { path: z.object({ id: param.uuid() }), header: z.object({ 'api-key': z.string() }) },
      fakeRequest({ params: { id: 'x' } }),
    );
    expect(issues).toEqual([
      { loc: ['path', 'id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' },
      { loc: ['header', 'api-key'], msg: 'Field required', type: 'missing' },
    ]);
  });

  it('returns the parsed body under `body` and the other parts flattened', () => {
    const out = parseRequest(
      { query: z.object({ q: param.string() }), body: z.object({ content: z.string() }) },
      fakeRequest({ query: { q: 'x' }, body: { content: 'hello' } }),
    );
    expect(out).toEqual({ q: 'x', body: { content: 'hello' } });
  });
});

describe('merged query, form and JSON parameters', () => {
  const Merged = z.object({ client_id: param.string(), top_k: param.int().optional(), grant_type: param.string().optional() });

  it('accepts a value from the query string or from the body alike', () => {
    expect(parseRequest({ merged: Merged }, fakeRequest({ query: { client_id: 'q' } }))).toMatchObject({ client_id: 'q' });
    expect(parseRequest({ merged: Merged }, fakeRequest({ body: { client_id: 'b', top_k: 3 } }))).toMatchObject({
      client_id: 'b',
      top_k: 3,
    });
  });

  it('lets the query string win over the body', () => {
    expect(parseRequest({ merged: Merged }, fakeRequest({ query: { client_id: 'q' }, body: { client_id: 'b' } }))).toMatchObject({
      client_id: 'q',
    });
  });

  it('locates a bad value that came from the body in the body', () => {
    expect(issuesOf({ merged: Merged }, fakeRequest({ body: { client_id: 'a', top_k: 'many' } }))).toEqual([
      { loc: ['body', 'top_k'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' },
    ]);
  });

  it('locates a bad value that came from the query in the query', () => {
    expect(issuesOf({ merged: Merged }, fakeRequest({ query: { client_id: 'a', top_k: 'many' } }))[0]?.loc).toEqual(['query', 'top_k']);
  });

  it('locates a missing value in the body when the request has one, else in the query', () => {
    expect(issuesOf({ merged: Merged }, fakeRequest({ body: { top_k: 1 } }))).toEqual([
      { loc: ['body', 'client_id'], msg: 'Field required', type: 'missing' },
    ]);
    expect(issuesOf({ merged: Merged }, fakeRequest({ query: { top_k: '1' } }))).toEqual([
      { loc: ['query', 'client_id'], msg: 'Field required', type: 'missing' },
    ]);
  });

  it('ignores a body that is not an object', () => {
    expect(issuesOf({ merged: Merged }, fakeRequest({ body: ['client_id'] }))).toEqual([
      { loc: ['query', 'client_id'], msg: 'Field required', type: 'missing' },
    ]);
  });

  it('uses mergedDefaults only when neither query nor body gives the value', () => {
    const spec: InputSpec = { merged: Merged, mergedDefaults: () => ({ client_id: 'from-basic-auth' }) };
    expect(parseRequest(spec, fakeRequest({}))).toMatchObject({ client_id: 'from-basic-auth' });
    expect(parseRequest(spec, fakeRequest({ body: { client_id: 'b' } }))).toMatchObject({ client_id: 'b' });
  });

  it('requires the fields a grant type needs (core schemas), located where the request put its parameters', () => {
    expect(issuesOf({ merged: UserLoginRequest }, fakeRequest({ query: { grant_type: 'refresh_token' } }))).toEqual([
      { loc: ['query', 'refresh_token'], msg: 'Field required', type: 'missing' },
    ]);
    expect(issuesOf({ merged: UserLoginRequest }, fakeRequest({}))).toEqual([
      { loc: ['query', 'username'], msg: 'Field required', type: 'missing' },
      { loc: ['query', 'password'], msg: 'Field required', type: 'missing' },
    ]);
    // A JSON body missing a field is told so at ["body", ...], not ["query", ...].
    expect(issuesOf({ merged: UserLoginRequest }, fakeRequest({ body: { username: 'alice' } }))).toEqual([
      { loc: ['body', 'password'], msg: 'Field required', type: 'missing' },
    ]);
    expect(
      issuesOf({ merged: TokenRequest }, fakeRequest({ body: { client_id: 'a', client_secret: 'b', grant_type: 'password' } })),
    ).toEqual([
      { loc: ['body', 'username'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'password'], msg: 'Field required', type: 'missing' },
    ]);
    expect(parseRequest({ merged: UserLoginRequest }, fakeRequest({ body: { username: 'alice', password: 'x' } }))).toMatchObject({
      username: 'alice',
    });
  });
});
