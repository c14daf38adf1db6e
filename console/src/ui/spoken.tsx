import { useCallback, useState } from 'react';

/**
 * What screen readers hear of a streamed answer: a visually hidden polite live region that is told
 * the answer a sentence at a time as it is written (not a piece at a time, which would read every
 * few words twice), and how it ended. The Chat page and the Models page's prompt use it.
 */

/** How a streamed answer finished (the graph's FinishReason). */
export type FinishReason = 'STOP' | 'LENGTH' | 'CONTENT_FILTER' | 'ERROR';

/** What is said when an answer ends. */
export const FINISH_SAID: Record<FinishReason, string> = {
  STOP: 'Answer complete.',
  LENGTH: 'The answer reached its length limit.',
  CONTENT_FILTER: 'The answer was cut by the content filter.',
  ERROR: 'The model failed midway; the answer is what came before.',
};

/** The complete sentences of `text` from character `from` on, and where the unfinished rest begins. */
function sentencesOf(text: string, from: number): { sentences: string[]; next: number } {
  const sentences: string[] = [];
  // A sentence ends at its mark and the citations after it (`warms. [1]`), once the next one has begun.
  const ending = /[.!?…]["')\]]*(?:\s*\[\d+\])*(?=\s+[^\s[])/g;
  ending.lastIndex = from;
  let next = from;
  for (let m = ending.exec(text); m; m = ending.exec(text)) {
    const end = m.index + m[0].length;
    const sentence = text.slice(next, end).trim();
    if (sentence) sentences.push(sentence);
    next = end;
  }
  return { sentences, next };
}

/**
 * Reads a growing text a sentence at a time, from character `from` on: `read` gives the sentences
 * completed since the last call, `rest` what is left unfinished (said when the answer ends).
 */
export function sentenceReader(from = 0) {
  let next = from;
  return {
    read(text: string): string[] {
      const r = sentencesOf(text, next);
      next = r.next;
      return r.sentences;
    },
    rest: (text: string) => text.slice(next).trim(),
  };
}

/** The lines the live region has said since it was last cleared; `say` adds lines (empty ones left out). */
export function useSpoken() {
  const [lines, setLines] = useState<string[]>([]);
  const say = useCallback((...more: string[]) => setLines((all) => [...all, ...more.filter(Boolean)]), []);
  const clear = useCallback(() => setLines([]), []);
  return { lines, say, clear };
}

/** The live region itself (`testId` lets a test read what it said). */
export function Spoken({ lines, testId }: { lines: string[]; testId: string }) {
  return (
    <div className="visually-hidden" aria-live="polite" aria-atomic="false" data-testid={testId}>
      {lines.map((line, i) => (
        <p key={i}>{line}</p>
      ))}
    </div>
  );
}
