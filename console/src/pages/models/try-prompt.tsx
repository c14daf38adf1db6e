import { useId, useState } from 'react';
import { useQuery, type CombinedError } from 'urql';
import { useStream } from '../../graphql/stream';
import { LmKeyField } from '../../ui/lm-key-field';
import { FINISH_SAID, sentenceReader, Spoken, useSpoken, type FinishReason } from '../../ui/spoken';
import { Failure } from '../../ui/states';
import { CHAT_MODELS, STREAM } from '../../operations/models';

interface Chunk {
  content: string;
  contentSoFar: string;
  finishReason: FinishReason | null;
  cached: boolean;
  guard: string;
  model: { id: string } | null;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number } | null;
}

/** The answer as it streamed: its text so far, what the chunks said of it, and whether it is still coming. */
interface Answer {
  text: string;
  state: 'streaming' | 'done' | 'stopped' | 'failed';
  model?: string;
  finishReason?: FinishReason;
  usage?: Chunk['usage'];
  cached?: boolean;
  guard?: string;
  error?: CombinedError | string;
}

/** Whether the graph refused the LM key (none, or not a valid one). */
const keyRefused = (e: CombinedError | string) =>
  typeof e !== 'string' && e.graphQLErrors.some((g) => g.extensions?.code === 'UNAUTHENTICATED');

const finished = (f: FinishReason) => f.toLowerCase().replace('_', ' ');

/**
 * A prompt to one model through the graph's `chatStream` subscription (over graphql-ws, with the
 * playgrounds' LM key in the socket's connection parameters): the answer appears as it is written,
 * Stop ends the subscription (and the model call), and the finish reason and tokens come at the
 * end. Screen readers hear it a sentence at a time (ui/spoken.tsx). The graph's refusal (no key, a
 * model the key may not use) is shown as it gives it.
 */
export function TryPrompt() {
  const [chatModels] = useQuery<{ adminModels: { items: { id: string; kind: string }[] } }>({ query: CHAT_MODELS });
  const stream = useStream();
  const spoken = useSpoken();
  const [model, setModel] = useState('');
  const [prompt, setPrompt] = useState('');
  const [answer, setAnswer] = useState<Answer>();
  const ids = { help: useId(), title: useId() };
  const choices = (chatModels.data?.adminModels.items ?? []).filter((m) => m.kind === 'chat').map((m) => m.id);
  const chosen = model || (choices.includes('local-chat') ? 'local-chat' : (choices[0] ?? ''));
  const streaming = answer?.state === 'streaming';
  const update = (change: (a: Answer) => Partial<Answer>) => setAnswer((a) => a && { ...a, ...change(a) });

  function send() {
    spoken.clear();
    setAnswer({ text: '', state: 'streaming' });
    const heard = sentenceReader();
    const input = { model: chosen, messages: [{ role: 'USER', content: prompt }] };
    stream.start<{ chatStream: Chunk }>(STREAM, { input }, (result) => {
      const chunk = result.data?.chatStream;
      if (!chunk) {
        stream.stop();
        update(() => ({ state: 'failed', error: result.error ?? 'The graph answered without a chunk.' }));
        spoken.say('The prompt was refused or failed.');
        return;
      }
      const { contentSoFar: text, finishReason } = chunk;
      spoken.say(...heard.read(text));
      update((a) => ({ text, model: chunk.model?.id ?? a.model, cached: chunk.cached, guard: chunk.guard }));
      if (finishReason) {
        stream.stop();
        update(() => ({ state: 'done', finishReason, usage: chunk.usage }));
        spoken.say(heard.rest(text), FINISH_SAID[finishReason]);
      }
    });
  }

  function stop() {
    stream.stop();
    update(() => ({ state: 'stopped' }));
    spoken.say('Stopped.');
  }

  return (
    <section className="models-try" aria-labelledby={ids.title}>
      <h2 id={ids.title}>Try a prompt</h2>
      <form
        className="inline-form models-try-form"
        aria-label="Try a prompt"
        onSubmit={(e) => {
          e.preventDefault();
          if (!streaming) send();
        }}
      >
        <LmKeyField describedBy={ids.help} disabled={streaming} />
        <label className="field">
          Model
          {chatModels.error ? (
            <input value={model} onChange={(e) => setModel(e.target.value)} required autoComplete="off" disabled={streaming} />
          ) : (
            <select value={chosen} onChange={(e) => setModel(e.target.value)} required disabled={chatModels.fetching || streaming}>
              {choices.map((id) => (
                <option key={id} value={id}>
                  {id}
                </option>
              ))}
            </select>
          )}
        </label>
        <label className="field wide">
          Prompt
          <textarea className="models-prompt" value={prompt} onChange={(e) => setPrompt(e.target.value)} rows={3} required />
        </label>
        <p id={ids.help} className="hint">
          The model is called with an LM key of the model gateway (one from Model keys, or the first start’s demo <code>api_key</code>), the
          one the Chat page keeps: in this tab only. The answer appears as the model writes it; Stop ends the model call.
        </p>
        <div className="models-try-actions">
          <button type="submit" disabled={streaming || !chosen}>
            Send
          </button>
          {streaming && (
            <button type="button" onClick={stop}>
              Stop
            </button>
          )}
        </div>
      </form>
      <Spoken lines={spoken.lines} testId="models-spoken" />
      {answer?.error && <Failure error={answer.error} />}
      {answer?.error && keyRefused(answer.error) && (
        <p className="hint">The graph calls models with an LM key: give one above (Model keys creates them).</p>
      )}
      {answer && (answer.text || !answer.error) && <AnswerView answer={answer} />}
    </section>
  );
}

function AnswerView({ answer }: { answer: Answer }) {
  return (
    <div className="models-answer" role="region" aria-label="The answer" aria-busy={answer.state === 'streaming'}>
      <p className="models-answer-text">{answer.text || (answer.state === 'streaming' ? 'Waiting for the model…' : '')}</p>
      <p className="hint">
        {answer.state === 'streaming' && 'Answering…'}
        {answer.state === 'stopped' && 'Stopped: the model call was ended.'}
        {answer.finishReason && FINISH_SAID[answer.finishReason]}
      </p>
      <dl className="facts">
        {answer.model && (
          <>
            <dt>Model</dt>
            <dd>{answer.model}</dd>
          </>
        )}
        {answer.finishReason && (
          <>
            <dt>Finished</dt>
            <dd>{finished(answer.finishReason)}</dd>
          </>
        )}
        {answer.usage && (
          <>
            <dt>Tokens</dt>
            <dd>
              {answer.usage.promptTokens} in, {answer.usage.completionTokens} out
            </dd>
          </>
        )}
        {answer.cached !== undefined && (
          <>
            <dt>From the cache</dt>
            <dd>{answer.cached ? 'yes' : 'no'}</dd>
          </>
        )}
        {answer.guard && (
          <>
            <dt>Guardrails</dt>
            <dd>{answer.guard}</dd>
          </>
        )}
      </dl>
    </div>
  );
}
