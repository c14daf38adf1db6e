import { showCustom } from './custom-metadata';
import { highlightFragment, matcher, snippet } from './highlight';
import type { Scored } from './ranking';
import type { ObjectRecord } from './ports';
import type { SearchIndex } from './search-index';
import type { SearchHit, StoredObject } from './types';
import { queryWords } from '../shared/text/words';

/** Result items for a page of ranked objects: the object, its score, a snippet of its best passage, highlights when asked. */
export const strip = ({ seq: _seq, ...o }: ObjectRecord): StoredObject => showCustom(o);
export const round = (x: number) => Math.round(x * 1e6) / 1e6;

export async function hitsFor(index: SearchIndex, page: Scored[], query: string, highlight: boolean): Promise<SearchHit[]> {
  if (!page.length) return [];
  const [objects, chunks, firsts] = await Promise.all([
    index.objects(page.map((s) => s.seq)),
    index.chunkTexts(page.flatMap((s) => (s.chunkId === null ? [] : [s.chunkId]))),
    index.firstChunks(page.filter((s) => s.chunkId === null).map((s) => s.seq)),
  ]);
  const test = matcher(queryWords(query));
  return page.flatMap((s) => {
    const object = objects.get(s.seq);
    if (!object) return [];
    const text = (s.chunkId !== null ? chunks.get(s.chunkId)?.text : firsts.get(s.seq)?.text) ?? '';
    const hit: SearchHit = { object: strip(object), score: round(s.score), snippet: snippet(text, test) };
    if (highlight) {
      hit.highlights = [
        { field: 'title' as const, fragment: highlightFragment(object.title, test) },
        { field: 'text' as const, fragment: highlightFragment(text, test) },
      ].filter((h): h is { field: 'title' | 'text'; fragment: string } => h.fragment !== undefined);
    }
    return [hit];
  });
}
