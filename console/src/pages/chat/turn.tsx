import { Failure } from '../../ui/states';
import { documentHref } from '../documents/graph';
import type { Turn } from './types';

/** A turn's answer as it streamed, its state, and its numbered sources (a source from a document links to it). */
export function TurnView({ turn }: { turn: Turn }) {
  return (
    <>
      <div className="chat-answer" aria-busy={turn.state === 'streaming'}>
        {turn.answer ? (
          turn.answer.split(/\n{2,}/).map((p, i) => <p key={i}>{p}</p>)
        ) : turn.state === 'streaming' ? (
          <p className="state">Searching and answering…</p>
        ) : null}
      </div>
      <p className="hint">
        {turn.state === 'streaming' && 'Answering… '}
        {turn.state === 'stopped' && 'Stopped. '}
        {turn.finishReason === 'LENGTH' && 'Cut at the length limit. '}
        {turn.finishReason === 'CONTENT_FILTER' && 'Cut by the content filter. '}
        {turn.finishReason === 'ERROR' && 'The model failed midway. '}
        {turn.model && `Model ${turn.model}. `}
        {turn.searchText && `Searched for “${turn.searchText}”.`}
      </p>
      {turn.error && <Failure error={turn.error} />}
      {turn.sources.length > 0 && (
        <>
          <h4 className="chat-sources-title">Sources</h4>
          <ol className="chat-sources">
            {turn.sources.map((s) => (
              <li key={s.citation} value={s.citation}>
                {s.document ? (
                  <a className="chat-source-title" href={documentHref(s.document.id)}>
                    {s.title}
                  </a>
                ) : (
                  <span className="chat-source-title">{s.title}</span>
                )}
                {s.fileName && s.fileName !== s.title && <span className="hint"> ({s.fileName})</span>}
                <span className="hint">
                  {' '}
                  · {s.category === 'INPUT_FILE' ? 'attached file' : 'document'} · relevance {s.score.toFixed(2)}
                </span>
                <details>
                  <summary>
                    Passage<span className="visually-hidden"> of source {s.citation}</span>
                  </summary>
                  <p className="chat-passage">{s.text}</p>
                </details>
              </li>
            ))}
          </ol>
        </>
      )}
    </>
  );
}
