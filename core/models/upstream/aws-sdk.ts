import {
  BedrockRuntimeClient,
  ConverseStreamCommand,
  InvokeModelCommand,
  type ConverseStreamCommandInput,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { UpstreamFailed, UpstreamTimeout } from '../../shared/errors';
import { unreadable } from '../../shared/http/failures';
import { inSpan, SpanKind, type Trace } from '../../shared/telemetry/tracing';
import type { CatalogModel } from '../catalog/catalog';
import type { ChatRequest, EmbedRequest } from '../neutral';
import { sdkError } from './aws-errors';
import { chatStreamOf, type StreamEvent } from './chat-stream';
import type { Env, ProviderFactory } from './spec';

/**
 * A vendor reached through the AWS SDK's Bedrock Runtime client, as data: where it is, its
 * credential, and how the neutral call becomes a ConverseStream input (and its AWS event stream,
 * which the SDK decodes, stream events), and an embedding an InvokeModel body (and back).
 */
export interface BedrockRuntimeApi {
  vendor: string;
  region: string;
  /** The endpoint in place of the region's. */
  endpoint?: string;
  /** `ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]`, read at each call; none: the SDK's default chain. */
  credential(): string | undefined;
  chat: {
    input(req: ChatRequest): ConverseStreamCommandInput;
    /** One event's stream events; an exception event is thrown as it came (mapped here). */
    events(ev: ConverseStreamOutput): StreamEvent[];
  };
  embed: {
    /** InvokeModel's JSON body for one text (the model takes one text per call). */
    body(text: string, req: EmbedRequest): object;
    answer(json: unknown): { vector: number[]; tokens?: number };
    /** Calls in flight at once. */
    concurrency: number;
  };
}

/**
 * The one place the AWS SDK is called (it signs with SigV4 and decodes the event stream): chat with
 * ConverseStream (always streamed upstream, as the other adapters), embeddings with InvokeModel,
 * one call per text. The SDK retries (maxAttempts) and times out (requestTimeout: silence on the
 * HTTP/2 stream) from the gateway's upstream settings. Unlike upstreamHttp it retries a silence too
 * (a stalled Bedrock costs up to retries + 1 read timeouts), and its HTTP/2 handler has no connect
 * timeout: a connection that never opens is caught by the same silence.
 */
export function bedrockRuntimeProvider(apiOf: (model: CatalogModel, env: Env) => BedrockRuntimeApi): ProviderFactory {
  return (model, { env, http }) => {
    const api = apiOf(model, env);
    const { vendor, region } = api;
    const { readTimeoutMs, retries } = http.settings;
    /**
     * A client span per SDK call (`bedrock <operation>`, its retries included, until its answer's
     * head): the SDK sends through its own HTTP/2 handler, not our transport, which makes the others.
     * Failures reach the span as the gateway's errors, secrets blotted.
     */
    const traced = <T>(
      operation: string,
      secrets: string[],
      signal: AbortSignal | undefined,
      trace: Trace | undefined,
      send: () => Promise<T>,
    ): Promise<T> =>
      inSpan(
        trace,
        `bedrock ${operation}`,
        {
          'rpc.system': 'aws-api',
          'rpc.service': 'BedrockRuntime',
          'rpc.method': operation,
          'cloud.region': region,
          'peer.service': 'bedrock',
        },
        async () => {
          try {
            return await send();
          } catch (err) {
            throw sdkError(err, vendor, signal, secrets);
          }
        },
        SpanKind.CLIENT,
      );
    let made: { client: BedrockRuntimeClient; credential: string | undefined } | undefined;

    const clientOf = () => {
      const credential = api.credential();
      if (made && made.credential === credential) return { client: made.client, secrets: credential ? credential.split(':') : [] };
      const [accessKeyId, secretAccessKey, sessionToken] = credential?.split(':') ?? [];
      if (credential && !secretAccessKey) {
        throw new UpstreamFailed(
          `The gateway's credential for ${vendor} is not ACCESS_KEY_ID:SECRET_ACCESS_KEY; its upstream configuration needs fixing`,
          { code: 'upstream_misconfigured' },
        );
      }
      // A new (rotated) key gets a new client. The old one is dropped, not destroyed: calls still
      // streaming through it keep their sessions, which close themselves (one session per call).
      made = {
        credential,
        client: new BedrockRuntimeClient({
          region,
          ...(api.endpoint ? { endpoint: api.endpoint } : {}),
          ...(credential
            ? { credentials: { accessKeyId: accessKeyId, secretAccessKey: secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } }
            : {}),
          maxAttempts: retries + 1,
          // The SDK's own HTTP/2 handler, configured; one session per call, as its Bedrock default.
          requestHandler: { requestTimeout: readTimeoutMs, disableConcurrentStreams: true },
        }),
      };
      return { client: made.client, secrets: credential ? credential.split(':') : [] };
    };

    /** The stream's events; a silence of the read timeout (the SDK's or ours, whichever notices first) is a 504. */
    async function* events(
      stream: AsyncIterable<ConverseStreamOutput>,
      cut: AbortController,
      secrets: string[],
      signal?: AbortSignal,
    ): AsyncGenerator<StreamEvent> {
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
          throw sdkError(err, vendor, signal, secrets);
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
        let out: StreamEvent[];
        try {
          out = api.chat.events(r.value);
        } catch (failure) {
          throw sdkError(failure, vendor, signal, secrets);
        }
        yield* out;
      }
    }

    return {
      async chat(req, signal, trace) {
        const { client, secrets } = clientOf();
        // Our own abort (the caller stopped reading, a silence) beside the caller's.
        const cut = new AbortController();
        const abortSignal = signal ? AbortSignal.any([signal, cut.signal]) : cut.signal;
        const input = api.chat.input(req);
        const out = await traced('ConverseStream', secrets, signal, trace, () =>
          client.send(new ConverseStreamCommand(input), { abortSignal }),
        );
        if (!out.stream) throw unreadable(vendor, 'a ConverseStream answer without its stream');
        return chatStreamOf(events(out.stream, cut, secrets, signal), {
          vendor,
          messages: req.messages,
          promptTokens: req.promptTokens,
          signal,
          onEnd: () => cut.abort(),
        });
      },

      async embed(req, signal, trace) {
        const { client, secrets } = clientOf();
        const cut = new AbortController();
        const abortSignal = signal ? AbortSignal.any([signal, cut.signal]) : cut.signal;
        const one = async (text: string) => {
          const command = new InvokeModelCommand({
            modelId: req.model,
            contentType: 'application/json',
            accept: 'application/json',
            body: JSON.stringify(api.embed.body(text, req)),
          });
          const out = await traced('InvokeModel', secrets, signal, trace, () => client.send(command, { abortSignal }));
          let json: unknown;
          try {
            json = JSON.parse(out.body.transformToString());
          } catch {
            throw unreadable(vendor, 'an embedding that is not JSON');
          }
          return api.embed.answer(json);
        };
        const results: { vector: number[]; tokens?: number }[] = [];
        let next = 0;
        try {
          await Promise.all(
            Array.from({ length: Math.min(api.embed.concurrency, req.inputs.length) }, async () => {
              while (next < req.inputs.length) {
                const i = next++;
                results[i] = await one(req.inputs[i]);
              }
            }),
          );
        } catch (err) {
          cut.abort();
          throw sdkError(err, vendor, signal, secrets);
        }
        const counted = results.every((r) => r.tokens !== undefined);
        return {
          vectors: results.map((r) => Float32Array.from(r.vector)),
          ...(counted ? { promptTokens: results.reduce((n, r) => n + r.tokens!, 0) } : {}),
        };
      },
    };
  };
}
