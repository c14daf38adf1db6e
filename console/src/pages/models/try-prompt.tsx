import { useId, useState } from 'react';
import { useMutation, useQuery, type CombinedError } from 'urql';
import { lmKey } from '../../graphql/lm-key';
import { Failure } from '../../ui/states';

const CHAT_MODELS = `query ConsoleChatModels { adminModels(active: true, first: 200, sort: "id") { items { id kind } } }`;
const CHAT = `mutation ConsoleTryModel($input: ChatInput!) {
  chat(input: $input) { id content finishReason cached guard model { id } usage { promptTokens completionTokens totalTokens } }
}`;

interface Completion {
  id: string;
  content: string;
  finishReason: 'STOP' | 'LENGTH' | 'CONTENT_FILTER' | 'ERROR';
  cached: boolean;
  guard: string;
  model: { id: string };
  usage: { promptTokens: number; completionTokens: number; totalTokens: number };
}

/** A prompt to one model through the graph's `chat` mutation, with the playgrounds' LM key in `api-key`; the answer comes whole. */
export function TryPrompt() {
  const [chatModels] = useQuery<{ adminModels: { items: { id: string; kind: string }[] } }>({ query: CHAT_MODELS });
  const [result, chat] = useMutation<{ chat: Completion | null }>(CHAT);
  const [key, setKey] = useState(lmKey.get);
  const [model, setModel] = useState('');
  const [prompt, setPrompt] = useState('');
  const [answer, setAnswer] = useState<Completion>();
  const [error, setError] = useState<CombinedError | string>();
  const ids = { help: useId(), title: useId() };
  const choices = (chatModels.data?.adminModels.items ?? []).filter((m) => m.kind === 'chat').map((m) => m.id);
  const chosen = model || (choices.includes('local-chat') ? 'local-chat' : (choices[0] ?? ''));

  return (
    <section className="models-try" aria-labelledby={ids.title}>
      <h2 id={ids.title}>Try a prompt</h2>
      <form
        className="inline-form models-try-form"
        aria-label="Try a prompt"
        onSubmit={(e) => {
          e.preventDefault();
          setAnswer(undefined);
          setError(undefined);
          const apiKey = key.trim();
          if (!apiKey) return setError('Give an LM key first: the graph calls models with one.');
          void chat(
            { input: { model: chosen, messages: [{ role: 'USER', content: prompt }] } },
            { fetchOptions: { headers: { 'api-key': apiKey } } },
          ).then((r) => {
            if (r.error) setError(r.error);
            else if (r.data?.chat) setAnswer(r.data.chat);
            else setError('The graph gave no answer.');
          });
        }}
      >
        <label className="field">
          LM key (api-key)
          <input
            type="password"
            value={key}
            autoComplete="off"
            spellCheck={false}
            aria-describedby={ids.help}
            onChange={(e) => {
              setKey(e.target.value);
              lmKey.set(e.target.value.trim());
            }}
          />
        </label>
        <label className="field">
          Model
          {chatModels.error ? (
            <input value={model} onChange={(e) => setModel(e.target.value)} required autoComplete="off" />
          ) : (
            <select value={chosen} onChange={(e) => setModel(e.target.value)} required disabled={chatModels.fetching}>
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
          one the Chat page keeps: in this tab only. The answer appears whole once the model has finished: the graph has no streamed chat
          for a model (the Chat page streams answers from your documents).
        </p>
        <button type="submit" disabled={result.fetching || !chosen}>
          Send
        </button>
      </form>
      <p className="state" role="status">
        {result.fetching ? 'Waiting for the whole answer…' : answer ? 'The answer has come.' : ''}
      </p>
      {error && <Failure error={error} />}
      {answer && (
        <div className="models-answer" role="region" aria-label="The answer">
          <p className="models-answer-text">{answer.content}</p>
          <dl className="facts">
            <dt>Model</dt>
            <dd>{answer.model.id}</dd>
            <dt>Finished</dt>
            <dd>{answer.finishReason.toLowerCase().replace('_', ' ')}</dd>
            <dt>Tokens</dt>
            <dd>
              {answer.usage.promptTokens} in, {answer.usage.completionTokens} out
            </dd>
            <dt>From the cache</dt>
            <dd>{answer.cached ? 'yes' : 'no'}</dd>
            <dt>Guardrails</dt>
            <dd>{answer.guard}</dd>
          </dl>
        </div>
      )}
    </section>
  );
}
