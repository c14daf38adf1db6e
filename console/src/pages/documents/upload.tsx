import { useEffect, useId, useRef, useState } from 'react';
import { uploadDocument, UploadRefused, type UploadMeta, type UploadPhase, type Uploaded } from '../../graphql/upload';
import { commas } from '../realms/common';
import { documentHref, sizeOf } from './graph';

/** What the graph reads (core/search/extract.ts); others are refused by the graph with its reason. */
const READABLE = '.txt,.text,.md,.markdown,.html,.htm,.pdf,.docx';
/** Files read and sent at once; the rest wait their turn (each is held in memory as base64 while it goes). */
const AT_ONCE = 2;

interface Item {
  key: number;
  file: File;
  meta: UploadMeta;
  phase: UploadPhase['phase'] | 'waiting' | 'done' | 'failed';
  fraction: number;
  doc?: Uploaded;
  error?: UploadRefused;
  abort: AbortController;
}

const percent = (f: number) => `${Math.round(f * 100)}%`;

function stateOf(i: Item): string {
  switch (i.phase) {
    case 'waiting':
      return 'Waiting';
    case 'reading':
      return `Reading ${percent(i.fraction)}`;
    case 'uploading':
      return `Uploading ${percent(i.fraction)}`;
    case 'indexing':
      return 'Indexing…';
    case 'done':
      return 'Done';
    case 'failed':
      return i.error?.code === 'CANCELLED' ? 'Cancelled' : 'Failed';
  }
}

/**
 * Uploading files as documents of the person's tenant: chosen with the file input (a label, the
 * keyboard) or dropped on the zone around it, several at once, each with its own progress and
 * state (reading, uploading n%, indexing, then a link to the document or the graph's refusal).
 * `onUploaded` is told of each document added.
 */
export function Upload({ onUploaded }: { onUploaded: (doc: Uploaded) => void }) {
  const [items, setItems] = useState<Item[]>([]);
  const [dragging, setDragging] = useState(false);
  const [meta, setMeta] = useState({ tags: '', folders: '', repos: '', isPrivate: false });
  const [spoken, setSpoken] = useState('');
  const next = useRef(0);
  const input = useRef<HTMLInputElement>(null);
  const help = useId();
  const notify = useRef(onUploaded);
  notify.current = onUploaded;

  const change = (key: number, patch: Partial<Item>) => setItems((all) => all.map((i) => (i.key === key ? { ...i, ...patch } : i)));

  // Starts waiting files while fewer than AT_ONCE are on their way.
  useEffect(() => {
    const going = items.filter((i) => i.phase === 'reading' || i.phase === 'uploading' || i.phase === 'indexing').length;
    const start = items.filter((i) => i.phase === 'waiting').slice(0, Math.max(0, AT_ONCE - going));
    for (const item of start) {
      change(item.key, { phase: 'reading', fraction: 0 });
      let last = '';
      uploadDocument(
        item.file,
        item.meta,
        (p) => {
          change(item.key, { phase: p.phase, fraction: 'fraction' in p ? p.fraction : 1 });
          if (p.phase !== last) setSpoken(`${item.file.name}: ${p.phase}`);
          last = p.phase;
        },
        item.abort.signal,
      ).then(
        (doc) => {
          change(item.key, { phase: 'done', fraction: 1, doc });
          setSpoken(`${item.file.name}: done`);
          notify.current(doc);
        },
        (e: unknown) => {
          const error = e instanceof UploadRefused ? e : new UploadRefused(String(e));
          change(item.key, { phase: 'failed', error });
          setSpoken(`${item.file.name}: ${error.message}`);
        },
      );
    }
  }, [items]);

  function add(files: FileList | File[] | null) {
    const chosen = [...(files ?? [])];
    if (!chosen.length) return;
    const common: UploadMeta = {
      tags: commas(meta.tags),
      folders: commas(meta.folders),
      repos: commas(meta.repos),
      isPrivate: meta.isPrivate,
    };
    setItems((all) => [
      ...all,
      ...chosen.map((file) => ({
        key: next.current++,
        file,
        meta: common,
        phase: 'waiting' as const,
        fraction: 0,
        abort: new AbortController(),
      })),
    ]);
    if (input.current) input.current.value = '';
  }

  const finished = items.filter((i) => i.phase === 'done' || i.phase === 'failed');
  return (
    <>
      <details className="doc-upload-meta">
        <summary>
          Tags, folders, repos and privacy of the files added next
          {meta.tags || meta.folders || meta.repos || meta.isPrivate ? ' (some set)' : ''}
        </summary>
        <div className="inline-form">
          <label className="field">
            Tags (comma-separated)
            <input value={meta.tags} maxLength={2000} onChange={(e) => setMeta({ ...meta, tags: e.target.value })} />
          </label>
          <label className="field">
            Folders (comma-separated)
            <input value={meta.folders} maxLength={2000} onChange={(e) => setMeta({ ...meta, folders: e.target.value })} />
          </label>
          <label className="field">
            Repos (comma-separated)
            <input value={meta.repos} maxLength={2000} onChange={(e) => setMeta({ ...meta, repos: e.target.value })} />
          </label>
          <label className="check">
            <input type="checkbox" checked={meta.isPrivate} onChange={(e) => setMeta({ ...meta, isPrivate: e.target.checked })} /> Private
            (only you see them)
          </label>
        </div>
      </details>
      <div
        className={`drop-zone${dragging ? ' dragging' : ''}`}
        data-testid="drop-zone"
        onDragOver={(e) => {
          e.preventDefault();
          e.dataTransfer.dropEffect = 'copy';
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          add(e.dataTransfer.files);
        }}
      >
        <label className="field">
          Choose files to upload
          <input ref={input} type="file" multiple accept={READABLE} aria-describedby={help} onChange={(e) => add(e.target.files)} />
        </label>
        <p id={help} className="hint">
          Or drop them here. Text, Markdown, HTML, PDF and Word (.docx) files; the tags, folders and repos above go with each.
        </p>
      </div>
      <p className="visually-hidden" aria-live="polite">
        {spoken}
      </p>
      {items.length > 0 && (
        <>
          <ul className="doc-uploads" aria-label="Uploads">
            {items.map((i) => (
              <UploadRow
                key={i.key}
                item={i}
                onCancel={() => {
                  i.abort.abort();
                  if (i.phase === 'waiting') change(i.key, { phase: 'failed', error: new UploadRefused('Cancelled.', 'CANCELLED') });
                }}
              />
            ))}
          </ul>
          {finished.length > 0 && (
            <button type="button" onClick={() => setItems((all) => all.filter((i) => !finished.includes(i)))}>
              Clear finished
            </button>
          )}
        </>
      )}
    </>
  );
}

function UploadRow({ item: i, onCancel }: { item: Item; onCancel: () => void }) {
  // Once every byte is sent the graph adds the document whatever this page does: no Cancel then.
  const cancellable = i.phase === 'waiting' || i.phase === 'reading' || i.phase === 'uploading';
  return (
    <li className={`doc-upload doc-upload-${i.phase}`}>
      <div className="doc-upload-head">
        <span className="doc-upload-name">{i.file.name}</span>
        <span className="hint">{sizeOf(i.file.size)}</span>
      </div>
      {i.phase === 'indexing' || i.phase === 'waiting' ? (
        <progress aria-label={`Progress of ${i.file.name}`} />
      ) : (
        <progress aria-label={`Progress of ${i.file.name}`} max={1} value={i.phase === 'failed' ? 0 : i.fraction} />
      )}
      <div className="doc-upload-state">
        <span data-testid="upload-state">{stateOf(i)}</span>
        {i.doc && (
          <a href={documentHref(i.doc.id)}>
            Open {i.doc.title}
            <span className="visually-hidden">
              {' '}
              ({i.doc.chunkCount} passage{i.doc.chunkCount === 1 ? '' : 's'})
            </span>
          </a>
        )}
        {cancellable && (
          <button type="button" onClick={onCancel}>
            Cancel<span className="visually-hidden"> {i.file.name}</span>
          </button>
        )}
      </div>
      {i.error && i.error.code !== 'CANCELLED' && (
        <p className="state error" role="alert">
          {i.error.code === 'PAYLOAD_TOO_LARGE' ? 'Too large: ' : ''}
          {i.error.message}
        </p>
      )}
    </li>
  );
}
