import { useId, useRef, useState } from 'react';
import { useStream } from '../../graphql/stream';
import { uploadDocument } from '../../graphql/upload';
import { LmKeyField } from '../../ui/lm-key-field';
import { FINISH_SAID, sentenceReader, Spoken, useSpoken } from '../../ui/spoken';
import { Empty } from '../../ui/states';
import { TurnView } from './turn';
import type { Chunk, Turn } from './types';
import { STREAM } from '../../operations/chat';

/** What the search service reads from a file (its REST upload and the graph's uploadDocument alike). */
const ATTACHABLE = '.txt,.md,.markdown,.html,.htm,.pdf,.docx,text/plain,text/markdown,text/html,application/pdf';

/**
 * The chat playground: a question answered by the chat proxy over the graph (answerStream, over
 * graphql-ws), streamed as it is written with the numbered sources it is grounded in; follow-ups
 * continue the conversation (history), Stop completes the subscription (which stops the model
 * call), an answer cut at its length limit can be continued, text files can be attached. Screen
 * readers hear the answer a sentence at a time (a polite live region), not a chunk at a time.
 */
export function Chat() {
  const stream = useStream();
  const [model, setModel] = useState('');
  const [question, setQuestion] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const spoken = useSpoken();
  const [files, setFiles] = useState<File[]>([]);
  /** The file names attached so far in this conversation (each question reads them all). */
  const [attached, setAttached] = useState<string[]>([]);
  const [attaching, setAttaching] = useState<string>();
  /** Set while attached files are sent, before the question (a second Ctrl+Enter then does nothing). */
  const sending = useRef(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const ids = { keyHelp: useId(), filesHelp: useId() };
  const streaming = turns.at(-1)?.state === 'streaming';

  const update = (change: (t: Turn) => Turn) => setTurns((all) => [...all.slice(0, -1), change(all[all.length - 1])]);
  const { say } = spoken;

  /** Sends the files chosen and not yet sent as private documents (uploadDocument); their names, or undefined when one failed. */
  async function sendFiles(): Promise<string[] | undefined> {
    const names = [...attached];
    for (const file of files) {
      setAttaching(`Attaching ${file.name}…`);
      try {
        const doc = await uploadDocument(file, { title: file.name, isPrivate: true }, (p) =>
          setAttaching(`Attaching ${file.name}… ${p.phase === 'indexing' ? 'reading it' : `${Math.round(p.fraction * 100)}%`}`),
        );
        names.push(doc.fileName ?? file.name);
      } catch (e) {
        setAttaching(`${file.name} could not be attached: ${e instanceof Error ? e.message : String(e)}`);
        return undefined;
      }
    }
    setAttaching(undefined);
    setFiles([]);
    if (fileInput.current) fileInput.current.value = '';
    setAttached(names);
    return names;
  }

  /** Asks `query` (or continues the last answer, cut at its length limit), streaming the answer into the last turn. */
  async function ask(query: string, continuing = false) {
    if (streaming || sending.current) return;
    sending.current = true;
    const names = await sendFiles().finally(() => (sending.current = false));
    if (!names) return;
    const done = turns.filter((t) => t.state !== 'failed' && t.answer);
    const last = done.at(-1);
    const history = (continuing ? done.slice(0, -1) : done).map((t) => ({ userQuery: t.question, response: t.answer }));
    const input = {
      query: continuing ? '$continue_answer' : query,
      history: history.length ? history : undefined,
      prevContext: continuing ? last?.answer : undefined,
      files: names.length ? names : undefined,
      modelId: model.trim() || undefined,
    };
    let text = continuing ? (last?.answer ?? '') : '';
    let sources = continuing ? (last?.sources ?? []) : [];
    const heard = sentenceReader(text.length);
    if (continuing) update((t) => ({ ...t, state: 'streaming', finishReason: undefined }));
    else {
      setTurns((all) => [...all, { question: query, answer: '', sources: [], state: 'streaming' }]);
      setQuestion('');
    }
    spoken.clear();
    const end = (turn: Partial<Turn>, lines: string[]) => {
      stream.stop();
      update((t) => ({ ...t, ...turn }));
      say(...lines);
    };
    stream.start<{ answerStream: Chunk }>(STREAM, { input }, (result) => {
      const chunk = result.data?.answerStream;
      if (!chunk) {
        end({ state: 'failed', error: result.error ?? 'The graph answered without a chunk.' }, ['The question could not be answered.']);
        return;
      }
      text += chunk.response;
      if (chunk.sources?.length) sources = chunk.sources;
      say(...heard.read(text));
      update((t) => ({
        ...t,
        answer: text,
        sources,
        model: chunk.model?.id ?? t.model,
        searchText: chunk.generatedSearchText || t.searchText,
      }));
      if (chunk.finishReason) {
        const why = { ...FINISH_SAID, LENGTH: 'The answer reached its length limit; it can be continued.' };
        end({ state: 'done', finishReason: chunk.finishReason }, [
          heard.rest(text),
          why[chunk.finishReason],
          sources.length === 1 ? 'One source listed.' : sources.length ? `${sources.length} sources listed.` : '',
        ]);
      }
    });
  }

  function stop() {
    stream.stop();
    update((t) => ({ ...t, state: 'stopped' }));
    say('Stopped.');
  }

  function restart() {
    setTurns([]);
    spoken.clear();
    setAttached([]);
  }

  const last = turns.at(-1);
  return (
    <section aria-labelledby="chat-title" className="chat">
      <h1 id="chat-title">Chat</h1>
      <p>
        Ask a question: the chat proxy answers it from your tenant’s documents, citing them by number. Follow-up questions continue the
        conversation.
      </p>
      <div className="inline-form chat-settings">
        <LmKeyField describedBy={ids.keyHelp} disabled={streaming} />
        <label className="field">
          Model (optional)
          <input
            value={model}
            placeholder="local-chat"
            autoComplete="off"
            disabled={streaming}
            onChange={(e) => setModel(e.target.value)}
          />
        </label>
        <p id={ids.keyHelp} className="hint">
          The model is called with an LM key of the model gateway: one an administrator created for your tenant (Model keys), or the first
          start’s demo key (<code>npm run -s platform -- credentials</code>, <code>api_key</code>). It is kept in this tab only and sent to
          the graph with your questions.
        </p>
      </div>

      <h2>Conversation</h2>
      {turns.length === 0 ? (
        <Empty>No question asked yet.</Empty>
      ) : (
        <ol className="chat-turns">
          {turns.map((t, i) => (
            <li key={i} className="chat-turn">
              <h3 className="chat-question">
                <span className="visually-hidden">Question {i + 1}: </span>
                {t.question}
              </h3>
              <TurnView turn={t} />
            </li>
          ))}
        </ol>
      )}
      <Spoken lines={spoken.lines} testId="chat-spoken" />

      <form
        className="chat-ask"
        aria-label="Ask a question"
        onSubmit={(e) => {
          e.preventDefault();
          if (question.trim()) void ask(question.trim());
        }}
      >
        <label className="field">
          {turns.length ? 'Follow-up question' : 'Question'}
          <textarea
            value={question}
            rows={3}
            required
            maxLength={20_000}
            onChange={(e) => setQuestion(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) e.currentTarget.form?.requestSubmit();
            }}
          />
        </label>
        <label className="field">
          Attach files
          <input
            ref={fileInput}
            type="file"
            multiple
            accept={ATTACHABLE}
            aria-describedby={ids.filesHelp}
            disabled={streaming}
            onChange={(e) => setFiles([...(e.target.files ?? [])])}
          />
        </label>
        <p id={ids.filesHelp} className="hint">
          Text, Markdown, HTML, PDF or Word (.docx) files, added to your documents (private to you) and read alongside the search for every
          question of this conversation{attached.length ? `; attached: ${attached.join(', ')}` : ''}.
        </p>
        {attaching && (
          <p
            className={attaching.startsWith('Attaching') ? 'state' : 'state error'}
            role={attaching.startsWith('Attaching') ? 'status' : 'alert'}
          >
            {attaching}
          </p>
        )}
        <div className="chat-actions">
          <button type="submit" disabled={streaming || !!attaching?.startsWith('Attaching')}>
            Ask
          </button>
          {streaming && (
            <button type="button" onClick={stop}>
              Stop
            </button>
          )}
          {!streaming && last?.finishReason === 'LENGTH' && (
            <button type="button" onClick={() => void ask('', true)}>
              Continue the answer
            </button>
          )}
          {!streaming && turns.length > 0 && (
            <button type="button" onClick={restart}>
              New conversation
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
