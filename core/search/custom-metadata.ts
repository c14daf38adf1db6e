import type { Json, JsonObject, ObjectFields, StoredObject } from './types';

/**
 * An object's tags, kvp and taxonomy are its custom metadata: the spec names `custom_metadata`'s
 * fields so, and v2's chunk search has no other place for them. Given inside `custom_metadata`
 * (create, upload, patch) they become the object's own fields, combined with the top-level ones;
 * a filter on `custom_metadata.tags` (kvp, taxonomy) is a filter on those fields; an object shows
 * them in its `custom_metadata`. Other keys of `custom_metadata` are stored, filtered and shown as
 * given. A value of the wrong shape (validation refuses it at the faces) stays an ordinary key.
 */
export type OwnFields = Pick<ObjectFields, 'tags' | 'kvp' | 'taxonomy'>;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const isTaxonomy = (v: unknown): boolean => isObject(v) || (Array.isArray(v) && v.every(isObject));

/** `custom_metadata` split into the object's own fields it names and the other keys. */
export function splitCustom(m: JsonObject | undefined): { own: Partial<OwnFields>; rest: JsonObject | undefined } {
  if (!m) return { own: {}, rest: undefined };
  const { tags, kvp, taxonomy, ...rest } = m;
  const own: Partial<OwnFields> = {};
  if (typeof tags === 'string') own.tags = [tags];
  else if (Array.isArray(tags) && tags.every((t) => typeof t === 'string')) own.tags = tags;
  else if (tags !== undefined) rest.tags = tags;
  if (isObject(kvp)) own.kvp = kvp;
  else if (kvp !== undefined) rest.kvp = kvp;
  if (taxonomy !== undefined && isTaxonomy(taxonomy)) own.taxonomy = taxonomy;
  else if (taxonomy !== undefined) rest.taxonomy = taxonomy;
  return { own, rest };
}

const list = (v: Json): Json[] => (Array.isArray(v) ? v : isObject(v) && !Object.keys(v).length ? [] : [v]);

/** Top-level and custom_metadata's taxonomy together: objects merged (top level wins a key), else one list. */
function taxonomyOf(top: Json | undefined, inner: Json | undefined): Json | undefined {
  if (top === undefined || inner === undefined) return top ?? inner;
  if (isObject(top) && isObject(inner)) return { ...inner, ...top };
  return [...list(top), ...list(inner)];
}

/**
 * Fields as given (create or patch), with custom_metadata's tags, kvp and taxonomy moved to the
 * object's own: tags united (top level first), kvp merged (the top level wins a key), taxonomy as
 * above. A field neither place gives stays absent (a patch then keeps the stored one).
 */
export function foldCustom<T extends Partial<ObjectFields>>(input: T): T {
  if (!input.customMetadata) return input;
  const { own, rest } = splitCustom(input.customMetadata);
  const out: T = { ...input, customMetadata: rest };
  if (own.tags) out.tags = [...new Set([...(input.tags ?? []), ...own.tags])];
  if (own.kvp) out.kvp = { ...own.kvp, ...input.kvp };
  if (own.taxonomy !== undefined) out.taxonomy = taxonomyOf(input.taxonomy, own.taxonomy);
  return out;
}

/** The object as callers see it: its custom_metadata holds its tags, kvp and taxonomy. */
export const showCustom = (o: StoredObject): StoredObject => ({
  ...o,
  customMetadata: { ...o.customMetadata, tags: o.tags, kvp: o.kvp, taxonomy: o.taxonomy },
});
