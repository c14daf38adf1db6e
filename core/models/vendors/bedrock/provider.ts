import {
  BedrockRuntimeClient, ConverseStreamCommand, InvokeModelCommand, type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { z } from 'zod';
import { UpstreamFailed, UpstreamTimeout } from '../../../shared/errors';
import type { ProviderFactory } from '../types';
import { chatStreamOf, type StreamEvent } from '../../upstream/chat-stream';
import { unreadable } from '../../../shared/http/failures';
import { parseAnswer } from '../../upstream/errors';
import { bedrockError, bedrockFinish, converseInput } from './upstream-request';
import { credentialOf } from '../credentials';
import { inSpan, SpanKind, type Trace } from '../../../shared/telemetry/tracing';

const TitanEmbedding = z.object({ embedding: z.array(z.number()).min(1), inputTextTokenCount: z.number().optional() });
/** Embedding calls in flight at once: Titan takes one text per call. */
const EMBED_CONCURRENCY = 4;

/**
 * Amazon Bedrock through the AWS SDK (it signs with SigV4 and decodes the event stream): chat with
 * ConverseStream (always streamed upstream, as the other adapters), embeddings with InvokeModel
 * and a Titan body, one call per text. The region is the catalog's (`us-east-1` by default), the
 * endpoint its baseUrl when set. The credential variable holds `ACCESS_KEY_ID:SECRET_ACCESS_KEY`
 * (`:SESSION_TOKEN` optional); without one the SDK's default chain is used. The SDK retries
 * (maxAttempts) and times out (requestTimeout: silence on the HTTP/2 stream) from the gateway's
 * upstream settings. Unlike upstreamHttp it retries a silence too (a stalled Bedrock costs up to
 * retries + 1 read timeouts), and its HTTP/2 handler has no connect timeout: a connection that
 * never opens is caught by the same silence.
 */
export const bedrockProvider: ProviderFactory = (model, { env, http }) => {
  const vendor = 'Bedrock';
  const { readTimeoutMs, retries } = http.settings;
  const region = model.upstream.region ?? 'us-east-1';
  /**
   * A client span per SDK call (`bedrock <operation>`, its retries included, until its answer's
   * head): the SDK sends through its own HTTP/2 handler, not our transport, which makes the others.
   * Failures reach the span as the gateway's errors, secrets blotted.
   */
  const traced = <T>(operation: string, secrets: string[], signal: AbortSignal | undefined, trace: Trace | undefined, send: () => Promise<T>): Promise<T> =>
    inSpan(trace, `bedrock ${operation}`, { 'rpc.system': 'aws-api', 'rpc.service': 'BedrockRuntime', 'rpc.method': operation, 'cloud.region': region, 'peer.service': 'bedrock' }, async () => {
      try {
        return await send();
      } catch (err) {
        throw bedrockError(err, vendor, signal, secrets);
      }
    }, SpanKind.CLIENT);
  let made: { client: BedrockRuntimeClient; credential: string | undefined } | undefined;

  const clientOf = () => {
    const credential = credentialOf(model, env, vendor, false);
    if (made && made.credential === credential) return { client: made.client, secrets: credential ? credential.split(':') : [] };
    const [accessKeyId, secretAccessKey, sessionToken] = credential?.split(':') ?? [];
    if (credential && !secretAccessKey) {
      throw new UpstreamFailed(`The gateway's credential for ${vendor} is not ACCESS_KEY_ID:SECRET_ACCESS_KEY; its upstream configuration needs fixing`, { code: 'upstream_misconfigured' });
    }
    // A new (rotated) key gets a new client. The old one is dropped, not destroyed: calls still
    // streaming through it keep their sessions, which close themselves (one session per call).
    made = {
      credential,
      client: new BedrockRuntimeClient({
        region,
        ...(model.upstream.baseUrl ? { endpoint: model.upstream.baseUrl } : {}),
        ...(credential ? { credentials: { accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey!, ...(sessionToken ? { sessionToken } : {}) } } : {}),
        maxAttempts: retries + 1,
        // The SDK's own HTTP/2 handler, configured; one session per call, as its Bedrock default.
        requestHandler: { requestTimeout: readTimeoutMs, disableConcurrentStreams: true },
      }),
    };
    return { client: made.client, secrets: credential ? credential.split(':') : [] };
  };

  /** The stream's events; a silence of the read timeout (the SDK's or ours, whichever notices first) is a 504. */
  async function* events(stream: AsyncIterable<ConverseStreamOutput>, cut: AbortController, secrets: string[], signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    const it = stream[Symbol.asyncIterator]();
    let waiting = Date.now();
    const timeout = () => new UpstreamTimeout(`${vendor} went silent midway`, { code: 'upstream_timeout' });
    // The SDK ends or breaks the stream when its requestTimeout fires: after such a silence that is a timeout too.
    const silent = () => Date.now() - waiting >= readTimeoutMs * 0.9;
    for (;;) {
      waiting = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<'idle'>((resolve) => (timer = setTimeout(resolve, readTimeoutMs, 'idle')));
      let r: IteratorResult<ConverseStreamOutput> | 'idle';
      try {
        r = await Promise.race([it.next(), idle]);
      } catch (err) {
        if (!signal?.aborted && silent()) throw timeout();
        throw bedrockError(err, vendor, signal, secrets);
      } finally {
        clearTimeout(timer);
      }
      if (r === 'idle') {
        cut.abort();
        throw timeout();
      }
      if (r.done) {
        if (silent()) throw timeout();
        return;
      }
      const ev = r.value;
      const failure = ev.internalServerException ?? ev.modelStreamErrorException ?? ev.validationException ?? ev.throttlingException ?? ev.serviceUnavailableException;
      if (failure) throw bedrockError(failure, vendor, signal, secrets);
      if (ev.contentBlockDelta?.delta?.text) yield { text: ev.contentBlockDelta.delta.text };
      // A tool call: its id and name start its block, its input's JSON comes in pieces (gathered by the block's index).
      const started = ev.contentBlockStart?.start?.toolUse;
      if (started) yield { toolCalls: [{ index: ev.contentBlockStart!.contentBlockIndex ?? 0, id: started.toolUseId, name: started.name }] };
      const input = ev.contentBlockDelta?.delta?.toolUse?.input;
      if (input) yield { toolCalls: [{ index: ev.contentBlockDelta!.contentBlockIndex ?? 0, arguments: input }] };
      if (ev.messageStop) yield { finishReason: bedrockFinish(ev.messageStop.stopReason) };
      const u = ev.metadata?.usage;
      if (u) yield { usage: { ...(u.inputTokens !== undefined ? { promptTokens: u.inputTokens } : {}), ...(u.outputTokens !== undefined ? { completionTokens: u.outputTokens } : {}) } };
    }
  }

  return {
    async chat(req, signal, trace) {
      const { client, secrets } = clientOf();
      // Our own abort (the caller stopped reading, a silence) beside the caller's.
      const cut = new AbortController();
      const abortSignal = signal ? AbortSignal.any([signal, cut.signal]) : cut.signal;
      const input = converseInput(req);
      const out = await traced('ConverseStream', secrets, signal, trace, () => client.send(new ConverseStreamCommand(input), { abortSignal }));
      if (!out.stream) throw unreadable(vendor, 'a ConverseStream answer without its stream');
      return chatStreamOf(events(out.stream, cut, secrets, signal), { vendor, messages: req.messages, promptTokens: req.promptTokens, signal, onEnd: () => cut.abort() });
    },

    async embed(req, signal, trace) {
      const { client, secrets } = clientOf();
      const cut = new AbortController();
      const abortSignal = signal ? AbortSignal.any([signal, cut.signal]) : cut.signal;
      const one = async (inputText: string) => {
        const command = new InvokeModelCommand({
          modelId: req.model, contentType: 'application/json', accept: 'application/json',
          body: JSON.stringify({ inputText, ...(req.dimensions ? { dimensions: req.dimensions } : {}) }),
        });
        const out = await traced('InvokeModel', secrets, signal, trace, () => client.send(command, { abortSignal }));
        let json: unknown;
        try {
          json = JSON.parse(out.body.transformToString());
        } catch {
          throw unreadable(vendor, 'an embedding that is not JSON');
        }
        return parseAnswer(TitanEmbedding, json, vendor, 'embedding');
      };
      const results: z.output<typeof TitanEmbedding>[] = [];
      let next = 0;
      try {
        await Promise.all(Array.from({ length: Math.min(EMBED_CONCURRENCY, req.inputs.length) }, async () => {
          while (next < req.inputs.length) {
            const i = next++;
            results[i] = await one(req.inputs[i]!);
          }
        }));
      } catch (err) {
        cut.abort();
        throw bedrockError(err, vendor, signal, secrets);
      }
      const counted = results.every((r) => r.inputTextTokenCount !== undefined);
      return {
        vectors: results.map((r) => Float32Array.from(r.embedding)),
        ...(counted ? { promptTokens: results.reduce((n, r) => n + r.inputTextTokenCount!, 0) } : {}),
      };
    },
  };
};
