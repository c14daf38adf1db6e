import { parseApiKeyHeader, pythonLiteralToJson } from '../../../core/models/keys/key-options';

describe('the api-key header', () => {
  it('is the key alone, with every option at its default', () => {
    expect(parseApiKeyHeader('lmk-abc')).toEqual({ key: 'lmk-abc', options: { is_cache: 1, use_guard: 1, is_system: true } });
  });

  it('takes options as a JSON object or a Python dict literal after a slash', () => {
    const json = parseApiKeyHeader(
      'lmk-abc/{"is_cache": 0, "use_guard": 2, "app_name": "bot", "Bot_Id": "b1", "Query_Id": 7, "userid": "u"}',
    );
    expect(json.options).toMatchObject({
      is_cache: 0,
      use_guard: 2,
      app_name: 'bot',
      Bot_Id: 'b1',
      Query_Id: 7,
      userid: 'u',
      is_system: true,
    });
    const dict = parseApiKeyHeader("lmk-abc/{'is_cache': 0, 'is_system': False, 'toxicity': 'it\\'s low', 'sentiment': None}");
    expect(dict.options).toMatchObject({ is_cache: 0, is_system: false, toxicity: "it's low" });
    expect(parseApiKeyHeader('lmk-abc/{"use_guard": "2", "unknown": [1]}').options.use_guard).toBe(2);
  });

  it.each([
    ['lmk-abc/{"use_guard": 3}', "Invalid api-key option 'use_guard': must be 0, 1 or 2"],
    ['lmk-abc/{"is_cache": true}', "Invalid api-key option 'is_cache': must be 0 or 1"],
    ['lmk-abc/{"is_system": "yes"}', "Invalid api-key option 'is_system': must be true or false"],
    ['lmk-abc/{"word_count_sent": -1}', "Invalid api-key option 'word_count_sent': must be a whole number"],
    ['lmk-abc/{"semantic_cache": 0}', "Invalid api-key option 'semantic_cache': must be a number greater than 0 and at most 1"],
    ['lmk-abc/{"semantic_cache": 1.01}', "Invalid api-key option 'semantic_cache': must be a number greater than 0 and at most 1"],
    ['lmk-abc/{"semantic_cache": -0.5}', "Invalid api-key option 'semantic_cache': must be a number greater than 0 and at most 1"],
    ['lmk-abc/{"semantic_cache": "high"}', "Invalid api-key option 'semantic_cache': must be a number greater than 0 and at most 1"],
    ['lmk-abc/{"semantic_cache": true}', "Invalid api-key option 'semantic_cache': must be a number greater than 0 and at most 1"],
    ['lmk-abc/[1, 2]', 'The api-key options are not a JSON object or dict'],
    ['lmk-abc/{oops', 'The api-key options are not a JSON object or dict'],
    ["lmk-abc/{'a': 'open", 'The api-key options are not a JSON object or dict: a string is not closed'],
  ])('refuses %s with a 400 naming the problem', (header, message) => {
    expect(() => parseApiKeyHeader(header)).toThrow(message);
  });

  it('takes a semantic cache threshold in (0, 1], as a number or a numeric string; none by default', () => {
    expect(parseApiKeyHeader('lmk-abc/{"semantic_cache": 0.95}').options.semantic_cache).toBe(0.95);
    expect(parseApiKeyHeader("lmk-abc/{'semantic_cache': 1}").options.semantic_cache).toBe(1);
    expect(parseApiKeyHeader('lmk-abc/{"semantic_cache": "0.9"}').options.semantic_cache).toBe(0.9);
    expect(parseApiKeyHeader('lmk-abc/{"semantic_cache": null}').options.semantic_cache).toBeUndefined();
  });

  it('converts only outside strings', () => {
    expect(JSON.parse(pythonLiteralToJson("{'x': 'True None', 'y': True}"))).toEqual({ x: 'True None', y: true });
  });
});
