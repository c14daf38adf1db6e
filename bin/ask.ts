#!/usr/bin/env node
/**
 * `npm run -s ask -- "question"`: a graphql-ws client of the federated graph that subscribes to
 * `answerStream` and prints the answer as it is written, then its sources (titled by the search
 * subgraph) and its model (from the models subgraph). Ctrl-C completes the subscription, which
 * stops the model call.
 */
import { createClient, type FormattedExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';
import { UsageError } from '../services/shared/cli';
import { parseArgs, type Flags } from './args';

const USAGE = [
  'ask: a streamed, grounded answer from the federated graph, over graphql-ws',
  '',
  '  npm run -s ask -- [--url URL] [--token T] [--api-key K] [--model M] [--tenant ID] "question"',
  '',
  '  --url      the graph (default GRAPHQL_URL or http://127.0.0.1:8080/graphql; http(s) or ws(s))',
  "  --token    the user's access token (default ACCESS_TOKEN)",
  '  --api-key  the model gateway key (default API_KEY)',
].join('\n');

export const ANSWER_STREAM = `subscription Ask($input: AskInput!) {
  answerStream(input: $input) {
    response finishReason
    sources { citation title document { id title } }
    model { id contextLength }
  }
}`;

interface Chunk {
  response: string;
  finishReason: string | null;
  sources: { citation: number; title: string; document: { id: string; title: string } | null }[] | null;
  model: { id: string; contextLength: number } | null;
}

export interface AskOptions {
  url: string;
  question: string;
  token?: string;
  apiKey?: string;
  modelId?: string;
  tenantId?: string;
}

export function askOptions(flags: Flags, args: string[], env: NodeJS.ProcessEnv): AskOptions {
  const question = args.join(' ').trim();
  if (!question) throw new UsageError('a question is required');
  return {
    url: flags.url ?? env.GRAPHQL_URL ?? 'http://127.0.0.1:8080/graphql',
    question,
    token: flags.token ?? env.ACCESS_TOKEN,
    apiKey: flags['api-key'] ?? env.API_KEY,
    modelId: flags.model,
    tenantId: flags.tenant,
  };
}

/** What to print after the answer: where it came from. */
function footer(first: Chunk | undefined, last: Chunk | undefined): string {
  const lines = [''];
  if (first?.model) lines.push(`model: ${first.model.id} (context ${first.model.contextLength} tokens)`);
  for (const s of first?.sources ?? [])
    lines.push(`[${s.citation}] ${s.document?.title ?? s.title}${s.document ? ` (document ${s.document.id})` : ''}`);
  if (last?.finishReason) lines.push(`finish: ${last.finishReason}`);
  return `${lines.join('\n')}\n`;
}

/** Subscribes, writes the answer to `out` piece by piece, resolves with the exit code. */
export function ask(opts: AskOptions, out: (s: string) => void, err: (s: string) => void, signal?: AbortSignal): Promise<number> {
  const params = Object.fromEntries(
    Object.entries({ authorization: opts.token && `Bearer ${opts.token}`, 'api-key': opts.apiKey }).filter(([, v]) => v),
  );
  const client = createClient({
    url: opts.url.replace(/^http/i, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: params,
    retryAttempts: 0,
    lazy: true,
  });
  const input = { query: opts.question, ...(opts.modelId && { modelId: opts.modelId }), ...(opts.tenantId && { tenantId: opts.tenantId }) };
  return new Promise<number>((resolve) => {
    let first: Chunk | undefined;
    let last: Chunk | undefined;
    let failed = false;
    const finish = (code: number) => {
      void client.dispose();
      resolve(code);
    };
    const stop = client.subscribe<{ answerStream: Chunk }>(
      { query: ANSWER_STREAM, variables: { input } },
      {
        next: (r: FormattedExecutionResult<{ answerStream: Chunk }>) => {
          for (const e of r.errors ?? []) {
            failed = true;
            err(`error: ${e.message}${typeof e.extensions?.code === 'string' && e.extensions.code ? ` (${e.extensions.code})` : ''}\n`);
          }
          const chunk = r.data?.answerStream;
          if (!chunk) return;
          first ??= chunk;
          last = chunk;
          out(chunk.response);
        },
        error: (e: unknown) => {
          const why = Array.isArray(e)
            ? e.map((x: { message: string }) => x.message).join('; ')
            : (e as { reason?: string; message?: string })?.reason || (e as Error)?.message || `cannot reach ${opts.url}`;
          err(`error: ${why}\n`);
          finish(1);
        },
        complete: () => {
          if (first) out(footer(first, last));
          finish(failed ? 1 : 0);
        },
      },
    );
    signal?.addEventListener(
      'abort',
      () => {
        stop();
        finish(130);
      },
      { once: true },
    );
  });
}

if (require.main === module) {
  let opts: AskOptions;
  try {
    const { flags, args } = parseArgs(process.argv.slice(2), {
      values: ['url', 'token', 'api-key', 'model', 'tenant'],
      switches: ['help'],
    });
    if (flags.help) {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    opts = askOptions(flags, args, process.env);
  } catch (e) {
    process.stderr.write(`ask: ${(e as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  const leave = new AbortController();
  process.once('SIGINT', () => leave.abort());
  void ask(
    opts,
    (s) => process.stdout.write(s),
    (s) => process.stderr.write(s),
    leave.signal,
  ).then((code) => {
    process.exitCode = code;
  });
}
