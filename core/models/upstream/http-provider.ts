import type { ModelProvider } from '../neutral';
import type { Trace } from '../../shared/telemetry/tracing';
import type { CatalogModel } from '../catalog/catalog';
import { chatStreamOf } from './chat-stream';
import type { UpstreamHttp, UpstreamResponse } from './http';
import type { Env, Exchange, HttpApi, ProviderFactory } from './spec';

/**
 * The one place a vendor spoken over HTTP is called: a provider as data (spec.ts) becomes a
 * ModelProvider. Each call builds its address, headers and body from the data (in that order, so a
 * misconfigured address is reported before a missing credential, and both before a body the
 * vendor cannot take), sends through the pooled client (upstream/http.ts: timeouts, retries,
 * statuses), and reads the answer back whole or through the stream decoder the provider names.
 */
export function httpProvider(apiOf: (model: CatalogModel, env: Env) => HttpApi): ProviderFactory {
  return (model, { env, http }) => providerOf(apiOf(model, env), http);
}

const JSON_TYPE = 'application/json';

function providerOf(api: HttpApi, http: UpstreamHttp): ModelProvider {
  const { vendor } = api;
  const send = (
    url: string,
    accept: string,
    body: object,
    signal?: AbortSignal,
    trace?: Trace,
    auth = api.auth(),
  ): Promise<UpstreamResponse> => {
    const form = body instanceof FormData;
    return http.request({
      vendor,
      url,
      signal,
      trace,
      // A form's multipart content type (with its boundary) is the transport's to write.
      headers: { ...(form ? {} : { 'content-type': JSON_TYPE }), accept, ...auth },
      body: form ? body : JSON.stringify(body),
    });
  };
  const exchange =
    <Req, Out>(x: Exchange<Req, Out>) =>
    async (req: Req, signal?: AbortSignal, trace?: Trace): Promise<Out> => {
      const url = x.url(req);
      const auth = api.auth();
      const res = await send(url, JSON_TYPE, x.body(req), signal, trace, auth);
      return x.answer(await res.json(), req);
    };

  const provider: ModelProvider = {};
  const chat = api.chat;
  if (chat) {
    provider.chat = async (req, signal, trace) => {
      const whole = req.stream === false;
      const url = chat.url(req, !whole);
      const auth = api.auth();
      const res = await send(url, whole ? JSON_TYPE : 'text/event-stream', chat.body(req), signal, trace, auth);
      const opts = { vendor, messages: req.messages, promptTokens: req.promptTokens, signal };
      if (whole) return chatStreamOf([await res.json()], { ...opts, decode: chat.whole() });
      const decode = chat.stream.decoder();
      const { doneMeans } = chat.stream;
      if (!doneMeans) return chatStreamOf(res.events(), { ...opts, decode: (e) => decode(e.data) });
      let sawDone = false;
      const events = res.events(() => (sawDone = true));
      return chatStreamOf(events, { ...opts, decode: (e) => decode(e.data), endedAs: () => (sawDone ? doneMeans : undefined) });
    };
  }
  if (api.takesTokenIds) provider.takesTokenIds = true;
  if (api.embed) provider.embed = exchange(api.embed);
  if (api.generateImage) provider.generateImage = exchange(api.generateImage);
  if (api.transcribe) provider.transcribe = exchange(api.transcribe);
  return provider;
}
