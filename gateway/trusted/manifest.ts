import { createHash } from 'node:crypto';
import { getOperationAST, Kind, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { BadRequest, PayloadTooLarge } from '../../core/shared/errors';
import { checkOperationBounds, type GraphqlLimits } from '../../edge/graphql/limits';

/** One operation an app ships: its id as the app sends it, its text, and the SHA-256 of that text. */
export interface TrustedDocument {
  id: string;
  body: string;
  /** Lower-case hex SHA-256 of `body` (UTF-8): how a request carrying the full text is recognised. */
  sha256: string;
  /** The operation's name and type, as the manifest says or as the document reads. */
  name?: string;
  type: 'query' | 'mutation' | 'subscription';
}

/** How large a manifest may be: documents in one app's list, bytes of its JSON, characters of one document. */
export interface ManifestLimits {
  maxDocuments: number;
  maxBytes: number;
  maxDocumentChars: number;
}

export const DEFAULT_MANIFEST_LIMITS: ManifestLimits = { maxDocuments: 5000, maxBytes: 8 * 2 ** 20, maxDocumentChars: 100_000 };

/** The formats read: Apollo's persisted query list and GraphQL Code Generator's persisted-documents.json. */
export type ManifestFormat = 'apollo-persisted-query-manifest' | 'graphql-codegen-persisted-documents';

const HEX64 = /^[0-9a-f]{64}$/;
/** An id as a client sends it in a URL or a JSON body: printable ASCII without spaces, 1-256 characters. */
const ID = /^[\x21-\x7e]{1,256}$/;

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const refuse = (message: string) => new BadRequest(message, { code: 'INVALID_MANIFEST' });

/** The entries of a manifest, whichever of the two formats it is in. */
function entriesOf(manifest: unknown): {
  format: ManifestFormat;
  entries: { id: unknown; body: unknown; name?: unknown; type?: unknown }[];
} {
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest))
    throw refuse('A manifest is a JSON object: an Apollo persisted query list or a persisted-documents.json');
  const m = manifest as Record<string, unknown>;
  if ('format' in m || 'operations' in m) {
    if (m.format !== 'apollo-persisted-query-manifest')
      throw refuse(`Unknown manifest format ${JSON.stringify(m.format)}: expected "apollo-persisted-query-manifest"`);
    if (m.version !== 1) throw refuse(`Unsupported Apollo manifest version ${JSON.stringify(m.version)}: expected 1`);
    if (!Array.isArray(m.operations)) throw refuse('An Apollo manifest lists its documents in "operations", an array');
    return {
      format: 'apollo-persisted-query-manifest',
      entries: m.operations.map((o: unknown, i) => {
        if (typeof o !== 'object' || o === null) throw refuse(`operations[${i}] is not an object`);
        return o as { id: unknown; body: unknown; name?: unknown; type?: unknown };
      }),
    };
  }
  return { format: 'graphql-codegen-persisted-documents', entries: Object.entries(m).map(([id, body]) => ({ id, body })) };
}

/** The document's single operation (with the fragments it uses), or a refusal naming it. */
function operationOf(doc: DocumentNode, label: string) {
  const operations = doc.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1)
    throw refuse(`Document ${label} holds ${operations.length} operations: a trusted document holds exactly one`);
  return getOperationAST(doc)!;
}

/**
 * Reads and checks a manifest, all or nothing: every entry has a unique id and a document that
 * parses and validates against the graph's API schema (`schema`), one operation each; ids that are
 * SHA-256 digests (Apollo's always, `sha256:<hex>` as GraphQL Code Generator writes them, a bare
 * 64-hex id in either format) must be the digest of their document; with `bounds` (the deployment's
 * GRAPHQL_MAX_* settings), each operation must stay within them. Other ids (a codegen
 * `hashAlgorithm: 'sha1'` or a custom function's) are taken as given. Refusals are BadRequests
 * coded INVALID_MANIFEST that name the document, or PayloadTooLarge past the limits.
 */
export async function parseManifest(
  manifest: unknown,
  schema: GraphQLSchema,
  limits: ManifestLimits = DEFAULT_MANIFEST_LIMITS,
  bounds?: GraphqlLimits,
): Promise<{ format: ManifestFormat; documents: TrustedDocument[] }> {
  const { format, entries, checked } = manifestChecker(manifest, schema, limits, bounds);
  const documents: TrustedDocument[] = [];
  for (const [i, e] of entries.entries()) {
    // Parsing and validating thousands of documents takes a second: the event loop serves others between batches.
    if (i > 0 && i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
    documents.push(checked(e, i));
  }
  return { format, documents };
}

/** parseManifest at once, for a start that serves nobody yet (the built-in list). */
export function parseManifestNow(
  manifest: unknown,
  schema: GraphQLSchema,
  limits: ManifestLimits = DEFAULT_MANIFEST_LIMITS,
): { format: ManifestFormat; documents: TrustedDocument[] } {
  const { format, entries, checked } = manifestChecker(manifest, schema, limits);
  return { format, documents: entries.map(checked) };
}

function manifestChecker(manifest: unknown, schema: GraphQLSchema, limits: ManifestLimits, bounds?: GraphqlLimits) {
  const { format, entries } = entriesOf(manifest);
  if (entries.length === 0) throw refuse('The manifest lists no documents');
  if (entries.length > limits.maxDocuments)
    throw new PayloadTooLarge(`The manifest lists ${entries.length} documents; at most ${limits.maxDocuments} are loaded at once`, {
      code: 'MANIFEST_TOO_LARGE',
    });
  const seen = new Set<string>();
  return { format, entries, checked };

  function checked(e: (typeof entries)[number], i: number): TrustedDocument {
    if (typeof e.id !== 'string' || !ID.test(e.id))
      throw refuse(`Document ${i + 1} has no valid id (1-256 printable characters, no spaces)`);
    const label = `'${e.id}'`;
    if (seen.has(e.id)) throw refuse(`Document ${label} is listed twice`);
    seen.add(e.id);
    if (typeof e.body !== 'string' || !e.body.trim()) throw refuse(`Document ${label} has no text`);
    if (e.body.length > limits.maxDocumentChars)
      throw refuse(`Document ${label} is longer than ${limits.maxDocumentChars} characters, the limit`);
    const sha256 = sha256Hex(e.body);
    const claimed = e.id.startsWith('sha256:')
      ? e.id.slice(7)
      : HEX64.test(e.id) || format === 'apollo-persisted-query-manifest'
        ? e.id
        : undefined;
    // A bare 64-hex codegen id may be another function's digest: only a `sha256:` one must match.
    const mustMatch = format === 'apollo-persisted-query-manifest' || e.id.startsWith('sha256:');
    if (claimed !== undefined && mustMatch && claimed !== sha256)
      throw refuse(`Document ${label} is not the SHA-256 of its text (its digest is ${sha256})`);
    let doc: DocumentNode;
    try {
      doc = parse(e.body, { noLocation: true });
    } catch (err) {
      throw refuse(`Document ${label} does not parse: ${(err as Error).message}`);
    }
    const operation = operationOf(doc, label);
    const invalid = validate(schema, doc, specifiedRules);
    if (invalid.length)
      throw refuse(`Document ${label} is not valid against the graph's schema: ${invalid.map((x) => x.message).join('; ')}`);
    if (bounds) {
      try {
        checkOperationBounds(e.body, bounds);
      } catch (err) {
        throw refuse(`Document ${label} is over the graph's bounds, so no request could run it: ${(err as Error).message}`);
      }
    }
    const name = operation.name?.value ?? (typeof e.name === 'string' ? e.name : undefined);
    if (e.type !== undefined && e.type !== operation.operation)
      throw refuse(`Document ${label} says it is a ${JSON.stringify(e.type)} but is a ${operation.operation}`);
    return { id: e.id, body: e.body, sha256, ...(name ? { name } : {}), type: operation.operation };
  }
}

/** Documents checked between two turns of the event loop (a few milliseconds' work). */
const YIELD_EVERY = 25;

/** An app's name as the CLI and the admin API take it. */
export const APP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function checkAppName(name: string): string {
  if (!APP_NAME.test(name))
    throw new BadRequest(`'${name}' is not an app name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit`, {
      code: 'INVALID_APP_NAME',
    });
  return name;
}
