import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { childEnv, ROOT } from './server';

export interface PlatformProcess {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  url: string;
}

/** `node dist/bin/platform.js <args>` (built by npm test before jest) once it says it is ready: `start`, `serve <name>`. */
export function startPlatformProcess(args: string[], env: Record<string, string>, timeoutMs = 90_000): Promise<PlatformProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'bin', 'platform.js'), ...args], { cwd: ROOT, env: childEnv(env) });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // Stopped, or it would outlive the test and keep jest waiting.
      child.kill('SIGTERM');
      reject(new Error(`no start within ${timeoutMs / 1000} s:\n${out}`));
    }, timeoutMs);
    child.once('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
    // Once: a later line (LOG_LEVEL=info logs each request) must not remove stopProcess's exit listener.
    child.stdout.on('data', function ready() {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m && out.includes('Ready.')) {
        child.stdout.off('data', ready);
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ child, output: () => out, url: m[1] });
      }
    });
  });
}

/** SIGTERM, resolving with the exit code. */
export const stopProcess = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((resolve) => {
    // Already gone (exited, or killed by a signal: then exitCode stays null and no 'exit' comes again).
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });

/** What the four services' tours (docs/tour-*.md) print when every step worked. */
export function expectRestTour(out: string) {
  expect(out).toContain('{"msg":"ok"}');
  expect(out).toContain('"token_type":"Bearer"');
  expect(out).toContain('"active":"true"');
  expect(out).toContain('{"active":"false"}');
  expect(out).toContain('"keys":[{');
  expect(out).toContain('"token_endpoint"');
  expect(out).toContain('"tokenType":"Bearer"');
  expect(out).toMatch(/"realm":\{"id":"[0-9a-f-]{36}","name":"default"/);
  expect(out).toContain('"message":"Object created"');
  expect(out).toMatch(
    /"message":"Passages found","result_count":1,"result":\[\{"chunk_id":\d+,"chunk_index":0,"text":"Lichens grow slowly on bare rock\."\}\],"next_cursor":null/,
  );
  expect(out).toMatch(/"created": ?[1-9]/);
  expect(out).toMatch(/"message":"Documents found","result_count":[1-9]/);
  expect(out).toContain('"data":"[1] Glaciers');
  // chunk search within custom_metadata's tags: the tags the search tour's upload and `platform ingest` gave
  expect(out).toMatch(/"result_count":[1-9]\d*,"result":\[\{"object_id":"[0-9a-f-]{36}","chunk_id":\d+/);
  expect(out).toContain('<em>Glaciers</em>');
  expect(out).toMatch(/"search":\{"totalCount":[1-9]/);
  expect(out).toContain('"object":"list","data":[{"id":"local-chat"');
  expect(out).toContain('"content":"Glaciers retreat as the climate warms.","refusal":null},"finish_reason":"stop"');
  expect(out).toContain('"object":"chat.completion.chunk"');
  expect(out).toMatch(/"object":"usage".*"totals":\{"requests":[1-9]/);
  expect(out).toMatch(/"finishReason":"STOP"/);
  expect(out).toContain('"stopReason":"end_turn"');
  expect(out).toMatch(/"type":"message".*"stop_reason":"end_turn"/);
  expect(out).toContain('"object":"embedding"');
  expect(out).toContain('"b64_json":"iVBORw0KGgo');
  expect(out).toMatch(/x-cache: HIT/i);
  expect(out).toMatch(/x-guard: redacted:email/i);
  expect(out).toContain('"code":"guardrail_violation"');
  expect(out).toMatch(/"chat":\{"content":"Seas rise as ice melts.","finishReason":"STOP","cached":false,"model":\{"id":"local-chat"/);
  expect(out).toMatch(/data: \{"generated_search_text":"Why do glaciers retreat\?","response":"Glaciers retreat/);
  expect(out).toMatch(/"finish_reason":"stop"\}\n\ndata: \[DONE\]/);
  expect(out).toContain('"finish_reason":"length"');
  expect(out).toMatch(/"generated_search_text":"Why do glaciers retreat and seas rise\?","finish_reason":"stop"/);
  expect(out).toMatch(/"generated_search_text":"Why do they retreat\? [^"]*glaciers/);
  expect(out).toContain('The ferry to the glacier leaves at seven. [1]');
  expect(out).toMatch(/"extracted_text_result":"\[1\] Trip notes\\nThe ferry/);
  expect(out).toContain('"success":true');
  expect(out).toMatch(
    /"generateAnswer":\{"response":"The ferry to the glacier leaves at seven. \[1\]","finishReason":"STOP","sources":\[\{"citation":1,"category":"INPUT_FILE","document":\{"title":"Trip notes"\}/,
  );
  expect(out).toMatch(/"model":\{"id":"local-chat","contextLength":8192\}/);
}

/** What the GraphQL tour (docs/graphql.md) prints when every step worked. */
export function expectGraphqlTour(out: string) {
  expect(out).toMatch(/"addDocument":\{"title":"Glaciers","chunkCount":[1-9]/);
  expect(out).toMatch(
    /"document":\{"title":"lichens\.txt","passages":\{"total":1,"nextCursor":null,"items":\[\{"chunkIndex":0,"text":"Lichens grow slowly on bare rock\./,
  );
  expect(out).toMatch(/"viewer":\{"username":"[^"]+","realm":\{"name":"default"\}\}/);
  expect(out).toMatch(/"search":\{"totalCount":[1-9]\d*,"hits":\[\{"document":\{"title":"Glaciers"\}/);
  expect(out).toMatch(/"models":\[\{"id":"local-chat","kind":"CHAT","contextLength":8192\}/);
  // bin/ask.ts: the answer, cited, then where it came from (the data may hold other documents too)
  expect(out).toMatch(/Glaciers retreat as the climate warms[^\n]*\[\d\]/);
  expect(out).toMatch(/\nmodel: local-chat \(context 8192 tokens\)\n(\[\d\] [^\n]+ \(document [0-9a-f-]{36}\)\n)+finish: STOP\n/);
  expect(out).toMatch(/\n\[\d\] Glaciers \(document [0-9a-f-]{36}\)\n/);
  // GraphQL over SSE, then multipart: the first event carries the sources, titled
  expect(out).toMatch(
    /event: next\ndata: \{"data":\{"answerStream":\{"response":"[^"]+","finishReason":null,"sources":\[[^\]]*\{"citation":\d,"document":\{"title":"Glaciers"\}\}/,
  );
  expect(out).toContain('event: complete');
  expect(out).toMatch(
    /--graphql\r\ncontent-type: application\/json; charset=utf-8\r\n\r\n\{"payload":\{"data":\{"answerStream":\{"response":"[^"]+","finishReason":null,"sources":\[[^\]]*"Glaciers"/,
  );
  expect(out).toContain('"finishReason":"STOP"');
  expect(out).toContain('\r\n--graphql--\r\n');
  // The model gateway's chatStream over SSE: the model on the first event, the finish and the tokens on the last
  expect(out).toMatch(
    /data: \{"data":\{"chatStream":\{"content":"[^"]+","finishReason":null,"usage":null,"model":\{"id":"local-chat"\}\}\}\}/,
  );
  expect(out).toMatch(
    /data: \{"data":\{"chatStream":\{"content":"","finishReason":"STOP","usage":\{"totalTokens":[1-9]\d*\},"model":null\}\}\}/,
  );
  // @defer: multipart parts (the documents' ids first, their chunk counts and the model after), SSE events, one JSON result
  expect(out).toMatch(
    /\r\n---\r\ncontent-type: application\/json; charset=utf-8\r\n\r\n\{"data":\{"sources":\{"citations":\[\{"title":"[^"]+","document":\{"id":"[^"]+"\}\}/,
  );
  expect(out).toMatch(/\{"incremental":\[\{"data":\{"chunkCount":[1-9]\d*\},"path":\["sources","citations",0,"document"\],"label":"doc"\}/);
  expect(out).toContain('\r\n-----\r\n');
  expect(out).toMatch(
    /event: next\ndata: \{"incremental":\[\{"data":\{"model":\{"id":"local-chat","contextLength":8192\}\},"path":\["sources"\]\}\]/,
  );
  expect(out).toMatch(
    /\{"data":\{"sources":\{"citations":\[\{"title":"[^"]+","document":\{"id":"[^"]+","chunkCount":[1-9]\d*\}\}[^\n]*"model":\{"id":"local-chat","contextLength":8192\}\}\}\}\n/,
  );
}
