/** One media range of an `Accept` header: its type (lower case), its parameters but `q`, its quality, its place. */
export interface MediaRange {
  type: string;
  params: Record<string, string>;
  q: number;
  index: number;
}

/** Runs of text between commas, or between semicolons, outside double quotes. */
const OUTSIDE_QUOTES: Record<string, RegExp> = { ',': /(?:[^,"]|"[^"]*")+/g, ';': /(?:[^;"]|"[^"]*")+/g };

/** Splits on `sep` (`,` or `;`) outside double quotes (`boundary="a,b"` stays whole). */
const splitOutsideQuotes = (text: string, sep: ',' | ';') => text.match(OUTSIDE_QUOTES[sep]) ?? [];

/** The media ranges of an `Accept` header (RFC 9110 §12.5.1); a malformed quality counts as 0. */
export function mediaRanges(accept: string | undefined): MediaRange[] {
  return splitOutsideQuotes(accept ?? '', ',')
    .map((part, index) => {
      const [type = '', ...rest] = splitOutsideQuotes(part, ';').map((s) => s.trim());
      const params: Record<string, string> = {};
      let q = 1;
      for (const p of rest) {
        const at = p.indexOf('=');
        if (at < 0) continue;
        const name = p.slice(0, at).trim().toLowerCase();
        const value = p
          .slice(at + 1)
          .trim()
          .replace(/^"(.*)"$/, '$1');
        if (name === 'q') q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : 0;
        else params[name] = value;
      }
      return { type: type.toLowerCase(), params, q, index };
    })
    .filter((r) => r.type.includes('/'));
}

/** The first range naming `type` itself (no wildcard) that `match` accepts, with a quality above 0. */
export function listed(
  ranges: readonly MediaRange[],
  type: string,
  match: (r: MediaRange) => boolean = () => true,
): MediaRange | undefined {
  return ranges.find((r) => r.type === type && r.q > 0 && match(r));
}

/** The better of two listed ranges: the higher quality, then the one listed first. */
export const better = (a: MediaRange | undefined, b: MediaRange | undefined): MediaRange | undefined =>
  !a ? b : !b ? a : b.q > a.q || (b.q === a.q && b.index < a.index) ? b : a;
