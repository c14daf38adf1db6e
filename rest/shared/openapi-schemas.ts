import { z } from 'zod';

/**
 * zod schemas as OpenAPI 3.1 schema objects. A schema the service names (`Msg`, `TokenRequest`,
 * `ChatCompletion`, ...) becomes a component and is referenced wherever it appears, nested or not;
 * any other is written inline.
 */
export type Json = Record<string, unknown>;

export const ValidationErrorSchema = z.object({
  loc: z.array(z.union([z.string(), z.int()])),
  msg: z.string(),
  type: z.string(),
});
export const HTTPValidationErrorSchema = z.object({ detail: z.array(ValidationErrorSchema) });

const COMPONENTS = '#/components/schemas/';

/**
 * zod objects drop unknown keys rather than refuse them, and answers may grow fields: no schema
 * closes an object (`additionalProperties: false`). z.int()'s safe-integer bounds say nothing a
 * reader needs (and Swagger UI would show -9007199254740991 as the sample).
 */
function open(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(open);
  if (!value || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'additionalProperties' && v === false) continue;
    if ((k === 'minimum' || k === 'maximum') && Math.abs(v as number) === Number.MAX_SAFE_INTEGER) continue;
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) out[k] = COMPONENTS + v.slice('#/$defs/'.length);
    else out[k] = open(v);
  }
  return out;
}

export class SchemaWriter {
  private readonly ids = new Map<z.ZodType, string>();
  /** zod's metadata (descriptions, examples) with the component names as ids. */
  private readonly metadata = {
    get: (s: z.ZodType) => {
      const meta = z.globalRegistry.get(s);
      const id = this.ids.get(s);
      return id ? { ...meta, id } : meta;
    },
  } as unknown as z.core.$ZodRegistry<Record<string, unknown>>;

  constructor(named: Record<string, z.ZodType>) {
    for (const [name, schema] of Object.entries(named)) this.ids.set(schema, name);
  }

  private convert(schema: z.ZodType): Json {
    const {
      $schema: _s,
      $defs,
      ...rest
    } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', metadata: this.metadata }) as Json;
    const unnamed = Object.keys(($defs ?? {}) as Json).filter((id) => ![...this.ids.values()].includes(id));
    if (unnamed.length) throw new Error(`OpenAPI: schemas ${unnamed.join(', ')} are cyclic or shared without a name`);
    return open(rest) as Json;
  }

  /** A `$ref` for a named schema, else the schema inline; plain JSON Schema passes through. */
  schema(schema: z.ZodType | Json): Json {
    if (!(schema instanceof z.ZodType)) return schema;
    const name = this.ids.get(schema);
    return name ? { $ref: COMPONENTS + name } : this.convert(schema);
  }

  /** Every named schema, for `components.schemas`; `optional` names lose their `required` list. */
  components(optional: ReadonlySet<string>): Json {
    const out: Json = {};
    for (const [schema, name] of this.ids) {
      const { $defs, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', metadata: this.metadata }) as Json;
      const own = open(($defs as Json)[name] ?? rest) as Json;
      if (optional.has(name)) delete own.required;
      out[name] = own;
    }
    return out;
  }

  nameOf(schema: z.ZodType): string | undefined {
    return this.ids.get(schema);
  }
}
