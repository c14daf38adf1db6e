import type { Caller } from '../../../core/shared/auth/caller';
import type { Retrieval } from '../../../core/chat/ports';
import { retrieve } from '../../../core/chat/retrieval';
import { UpstreamTimeout } from '../../../core/shared/errors';
import type { Passage } from '../../../core/search/types';

const caller = { tenantId: 't', subject: 'u', bearer: 'x' } as Caller;
const limits = { searchMs: 2000, extractMs: 2000, sources: 5, filePassages: 8 };
const passage = (objectId: string): Passage => ({
  objectId,
  chunkId: 1,
  chunkIndex: 0,
  text: objectId,
  score: 1,
  title: objectId,
  fileName: null,
});

/** A retrieval whose calls wait until `expected` of them have started: calls made one after another never finish. */
function latched(expected: number) {
  let started = 0;
  let open!: () => void;
  const allStarted = new Promise<void>((resolve) => (open = resolve));
  const seen: { fileNames?: string[]; signal?: AbortSignal }[] = [];
  const retrieval: Retrieval = {
    async passages(req, call) {
      seen.push({ fileNames: req.fileNames, signal: call.signal });
      if (++started === expected) open();
      await allStarted;
      return [passage(req.fileNames ? 'file' : 'doc')];
    },
  };
  return { retrieval, seen };
}

describe('the concurrent run (spec behaviour 2)', () => {
  it('runs the semantic search and the file extraction at the same time', async () => {
    // Each task waits until both have started: run one after the other, the first would time out.
    const { retrieval, seen } = latched(2);
    const got = await retrieve(retrieval, limits, { searchText: 'q', files: ['a.pdf'] }, { caller });
    expect(got.search.map((p) => p.objectId)).toEqual(['doc']);
    expect(got.files.map((p) => p.objectId)).toEqual(['file']);
    expect(seen.map((s) => s.fileNames)).toEqual([undefined, ['a.pdf']]);
  });

  it('skips the extraction when no file was uploaded', async () => {
    const { retrieval, seen } = latched(1);
    const got = await retrieve(retrieval, limits, { searchText: 'q', files: [] }, { caller });
    expect(got.files).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it('gives each task its own time limit: a stalled extraction is a timeout naming it, and the search is aborted too', async () => {
    const signals: AbortSignal[] = [];
    const retrieval: Retrieval = {
      passages: (req, call) => {
        signals.push(call.signal!);
        // The search would answer late; the extraction never does.
        return new Promise((resolve) => {
          if (!req.fileNames) setTimeout(() => resolve([passage('doc')]), 100);
        });
      },
    };
    const err = await retrieve(retrieval, { ...limits, extractMs: 50 }, { searchText: 'q', files: ['a.pdf'] }, { caller }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UpstreamTimeout);
    expect((err as Error).message).toMatch(/uploaded files.*50 ms/);
    expect(signals.every((s) => s.aborted)).toBe(true);
  });

  it('passes a failure of the search on as it is', async () => {
    const boom = new Error('search down');
    const retrieval: Retrieval = {
      passages: async () => {
        throw boom;
      },
    };
    await expect(retrieve(retrieval, limits, { searchText: 'q', files: [] }, { caller })).rejects.toBe(boom);
  });

  it('stops both tasks when the caller leaves', async () => {
    const caller_ = new AbortController();
    const signals: AbortSignal[] = [];
    const retrieval: Retrieval = {
      passages: (_req, call) => {
        signals.push(call.signal!);
        return new Promise(() => undefined);
      },
    };
    const pending = retrieve(retrieval, limits, { searchText: 'q', files: ['a'] }, { caller, signal: caller_.signal });
    caller_.abort(new Error('gone'));
    await expect(pending).rejects.toThrow('gone');
    expect(signals).toHaveLength(2);
    expect(signals.every((s) => s.aborted)).toBe(true);
  });
});
