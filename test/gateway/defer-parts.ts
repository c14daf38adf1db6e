/** The payloads of an operation delivered in parts (the 2022-08-24 `@defer` draft), as a test reads them. */
export interface Part {
  data?: any;
  errors?: any[];
  incremental?: { data?: any; items?: any[]; path: (string | number)[]; label?: string; errors?: any[] }[];
  hasNext: boolean;
}

function deepMerge(into: any, from: any): void {
  for (const [k, v] of Object.entries(from)) {
    if (into[k] && typeof into[k] === 'object' && v && typeof v === 'object') deepMerge(into[k], v);
    else into[k] = v;
  }
}

/** The parts merged as a client merges them: each item's data into the object at its path (a stream's items into its list), errors gathered. */
export function mergeParts(parts: readonly Part[]): { data?: any; errors?: any[] } {
  const [first, ...rest] = parts;
  const data = structuredClone(first.data);
  const errors = [...(first.errors ?? [])];
  for (const item of rest.flatMap((p) => p.incremental ?? [])) {
    errors.push(...(item.errors ?? []));
    if (item.items) {
      const list = item.path.slice(0, -1).reduce((at, key) => at?.[key], data);
      list.splice(item.path.at(-1), 0, ...item.items);
      continue;
    }
    const parent = item.path.slice(0, -1).reduce((at, key) => at?.[key], data);
    const key = item.path.at(-1);
    if (item.data === null && parent && key !== undefined) parent[key] = null;
    else if (item.data)
      deepMerge(
        item.path.reduce((at, k) => at?.[k], data),
        item.data,
      );
  }
  return { data, ...(errors.length ? { errors } : {}) };
}
