import type { Aggregations, Bucket } from './graph';

/** The filters "like the v2 search", as the form holds them: comma-separated lists, dates as `YYYY-MM-DD`; '' is "any". */
export interface Filters {
  title: string;
  tags: string;
  folders: string;
  repos: string;
  objectTypes: string;
  fileExtensions: string;
  createdFrom: string;
  createdTo: string;
  modifiedFrom: string;
  modifiedTo: string;
}

export const NO_FILTERS: Filters = {
  title: '',
  tags: '',
  folders: '',
  repos: '',
  objectTypes: '',
  fileExtensions: '',
  createdFrom: '',
  createdTo: '',
  modifiedFrom: '',
  modifiedTo: '',
};

const listOf = (text: string): string[] | undefined => {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return items.length ? items : undefined;
};

/** A day's first or last instant in this browser's time zone, as ISO 8601. */
const dayEdge = (day: string, end: boolean): string | undefined => {
  if (!day) return undefined;
  const ms = new Date(`${day}T${end ? '23:59:59.999' : '00:00:00'}`).getTime();
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
};

const rangeOf = (from: string, to: string) =>
  from || to ? { from: dayEdge(from, false) ?? null, to: dayEdge(to, true) ?? null } : undefined;

/** The graph's DocumentFilter for the form's filters (values within one are OR-ed, filters AND-ed), or undefined for none. */
export function filterOf(f: Filters): Record<string, unknown> | undefined {
  const filter = {
    title: f.title.trim() || undefined,
    tags: listOf(f.tags),
    folders: listOf(f.folders),
    repos: listOf(f.repos),
    objectTypes: listOf(f.objectTypes),
    fileExtensions: listOf(f.fileExtensions)?.map((e) => e.replace(/^\./, '').toLowerCase()),
    createdBetween: rangeOf(f.createdFrom, f.createdTo),
    modifiedBetween: rangeOf(f.modifiedFrom, f.modifiedTo),
  };
  return Object.values(filter).some((v) => v !== undefined) ? filter : undefined;
}

export const isFiltered = (f: Filters) => Object.values(f).some(Boolean);

/** The title field alone (the list shows it outside "More filters"). */
export function TitleField({ value, onChange }: { value: Filters; onChange: (f: Filters) => void }) {
  return (
    <label className="field">
      {TEXT[0].label}
      <input
        value={value.title}
        maxLength={TEXT[0].max}
        autoComplete="off"
        onChange={(e) => onChange({ ...value, title: e.target.value })}
      />
    </label>
  );
}

type ListField = 'tags' | 'folders' | 'repos' | 'objectTypes' | 'fileExtensions';

/** The filters with `value` added to a list filter (once). */
export function withValue(f: Filters, field: ListField, value: string): Filters {
  const items = listOf(f[field]) ?? [];
  return items.includes(value) ? f : { ...f, [field]: [...items, value].join(', ') };
}

const TEXT: { name: keyof Filters; label: string; max: number }[] = [
  { name: 'title', label: 'Title contains', max: 512 },
  { name: 'tags', label: 'Tags (comma-separated)', max: 2000 },
  { name: 'folders', label: 'Folders (comma-separated)', max: 2000 },
  { name: 'repos', label: 'Repos (comma-separated)', max: 2000 },
  { name: 'objectTypes', label: 'Object types (comma-separated)', max: 500 },
  { name: 'fileExtensions', label: 'File extensions (comma-separated)', max: 500 },
];
const DATES: { name: keyof Filters; label: string }[] = [
  { name: 'createdFrom', label: 'Created from' },
  { name: 'createdTo', label: 'Created to' },
  { name: 'modifiedFrom', label: 'Modified from' },
  { name: 'modifiedTo', label: 'Modified to' },
];

/** The filter fields (a form's part: the form applies them); without the title's when the form shows it apart. */
export function FilterFields({ value, onChange, title = true }: { value: Filters; onChange: (f: Filters) => void; title?: boolean }) {
  return (
    <div className="doc-filters">
      {TEXT.filter((t) => title || t.name !== 'title').map((t) => (
        <label key={t.name} className="field">
          {t.label}
          <input
            value={value[t.name]}
            maxLength={t.max}
            autoComplete="off"
            onChange={(e) => onChange({ ...value, [t.name]: e.target.value })}
          />
        </label>
      ))}
      {DATES.map((d) => (
        <label key={d.name} className="field">
          {d.label}
          <input type="date" value={value[d.name]} onChange={(e) => onChange({ ...value, [d.name]: e.target.value })} />
        </label>
      ))}
    </div>
  );
}

const FACETS: { of: keyof Aggregations; field: ListField; title: string }[] = [
  { of: 'tags', field: 'tags', title: 'Tags' },
  { of: 'folders', field: 'folders', title: 'Folders' },
  { of: 'repos', field: 'repos', title: 'Repos' },
  { of: 'objectType', field: 'objectTypes', title: 'Object types' },
  { of: 'fileExtension', field: 'fileExtensions', title: 'File extensions' },
];

/** The match set's term counts (the graph's aggregations); choosing one adds it to the filters. */
export function Facets({ aggregations, onPick }: { aggregations: Aggregations; onPick: (field: ListField, value: string) => void }) {
  const shown = FACETS.filter((f) => aggregations[f.of].length > 0);
  if (!shown.length) return null;
  return (
    <div className="doc-facets">
      {shown.map((f) => (
        <div key={f.of} role="group" aria-label={`Filter by ${f.title.toLowerCase()}`} className="doc-facet">
          <span className="doc-facet-title">{f.title}</span>
          {aggregations[f.of].slice(0, 12).map((b: Bucket) => (
            <button key={b.key} type="button" className="chip" onClick={() => onPick(f.field, b.key)}>
              {b.key} <span className="chip-count">{b.docCount}</span>
              <span className="visually-hidden"> documents</span>
            </button>
          ))}
        </div>
      ))}
    </div>
  );
}
