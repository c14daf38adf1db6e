/** The complete sentences of `text` from character `from` on, and where the unfinished rest begins. */
export function sentencesOf(text: string, from: number): { sentences: string[]; next: number } {
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
