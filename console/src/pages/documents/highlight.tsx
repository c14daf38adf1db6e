const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** HTML-escaped text back to text: the graph escapes `& < > " '` (as `&#38;` ...); named references too. */
export function unescapeHtml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref.toLowerCase()] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/**
 * A highlight fragment of the graph (HTML-escaped text with the matches in `<em>`) as text with the
 * matches marked: split on the `<em>` tags here, each piece unescaped and rendered as text by React,
 * so nothing the document holds can become markup (no innerHTML; the page's policy forbids it anyway).
 */
export function Fragment({ html }: { html: string }) {
  const pieces = html.split(/<\/?em>/);
  return <>{pieces.map((p, i) => (i % 2 === 1 ? <mark key={i}>{unescapeHtml(p)}</mark> : unescapeHtml(p)))}</>;
}
