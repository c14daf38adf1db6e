import { ConverseRequest, converseToChat, converseTools } from '../../../core/models/vendors/bedrock';
import { GenerateContentRequest, geminiBody, geminiToChat, jsonSchemaOf } from '../../../core/models/vendors/gemini';
import { parseInput } from '../../../core/shared/validation';

/** How the Gemini and Converse wires read tools, calls and results into the neutral call. */
describe('Gemini wire: function calling read into the neutral call', () => {
  it('converts a Gemini Schema to JSON Schema: lower-case types, nullable as a null type, propertyOrdering dropped', () => {
    expect(
      jsonSchemaOf({
        type: 'OBJECT',
        propertyOrdering: ['a', 'b'],
        required: ['a'],
        properties: {
          a: { type: 'STRING', nullable: true, enum: ['x'] },
          b: { type: 'ARRAY', items: { type: 'INTEGER' } },
          c: { anyOf: [{ type: 'NUMBER' }] },
        },
      }),
    ).toEqual({
      type: 'object',
      required: ['a'],
      properties: {
        a: { type: ['string', 'null'], enum: ['x'] },
        b: { type: 'array', items: { type: 'integer' } },
        c: { anyOf: [{ type: 'number' }] },
      },
    });
  });

  it('gives calls without an id one; a response without an id answers the earliest unanswered call of its name; snake-case data keys stay', () => {
    const body = geminiBody(GenerateContentRequest, {
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris and Lyon?' }] },
        {
          role: 'model',
          parts: [
            { function_call: { name: 'get_weather', args: { city_name: 'Paris' } } },
            { functionCall: { name: 'get_weather', args: { city_name: 'Lyon' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { function_response: { name: 'get_weather', response: { output: 'sunny' } } },
            { functionResponse: { name: 'get_weather', response: { sky_state: 'rain' } } },
            { text: 'And tomorrow?' },
          ],
        },
      ],
      tools: [
        { function_declarations: [{ name: 'get_weather', parameters: { type: 'OBJECT', properties: { city_name: { type: 'STRING' } } } }] },
      ],
      tool_config: { function_calling_config: { mode: 'ANY', allowed_function_names: ['get_weather'] } },
    });
    const call = geminiToChat(body);
    expect(call.messages).toEqual([
      { role: 'user', text: 'Weather in Paris and Lyon?' },
      {
        role: 'assistant',
        text: '',
        toolCalls: [
          { id: 'call_1_0', name: 'get_weather', arguments: '{"city_name":"Paris"}' },
          { id: 'call_1_1', name: 'get_weather', arguments: '{"city_name":"Lyon"}' },
        ],
      },
      { role: 'tool', text: 'sunny', toolCallId: 'call_1_0', toolName: 'get_weather' },
      { role: 'tool', text: '{"sky_state":"rain"}', toolCallId: 'call_1_1', toolName: 'get_weather' },
      { role: 'user', text: 'And tomorrow?' },
    ]);
    expect(call.tools).toEqual([{ name: 'get_weather', parameters: { type: 'object', properties: { city_name: { type: 'string' } } } }]);
    expect(call.toolChoice).toEqual({ type: 'tool', name: 'get_weather' });
  });

  it('names the field of a bad function part, an undeclared allowed name, and a schema without the JSON type', () => {
    const bad = (body: object) => {
      try {
        geminiToChat(geminiBody(GenerateContentRequest, body));
      } catch (err) {
        return (err as { fieldViolations: { field: string }[] }).fieldViolations[0].field;
      }
      throw new Error('expected a 400');
    };
    const ask = [{ role: 'user', parts: [{ text: 'x' }] }];
    expect(bad({ contents: [{ role: 'user', parts: [{ text: 'x', functionCall: { name: 'f' } }] }] })).toBe('contents[0].parts[0]');
    expect(bad({ contents: [{ role: 'user', parts: [{ functionCall: { name: 'f' } }] }] })).toBe('contents[0].parts[0].functionCall');
    expect(
      bad({
        contents: ask,
        tools: [{ functionDeclarations: [{ name: 'f' }] }],
        toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['g'] } },
      }),
    ).toBe('toolConfig.functionCallingConfig.allowedFunctionNames');
    expect(bad({ contents: ask, generationConfig: { responseSchema: { type: 'OBJECT' } } })).toBe('generationConfig.responseMimeType');
  });
});

describe('Converse wire: tools read into the neutral call', () => {
  it("reads toolUse and toolResult blocks (an error result says so, the turn's text after its results), toolConfig and outputConfig", () => {
    const body = parseInput(ConverseRequest, {
      messages: [
        { role: 'user', content: [{ text: 'Weather?' }] },
        {
          role: 'assistant',
          content: [{ text: 'Looking.' }, { toolUse: { toolUseId: 'tu1', name: 'get_weather', input: { city: 'Paris' } } }],
        },
        {
          role: 'user',
          content: [
            { toolResult: { toolUseId: 'tu1', status: 'error', content: [{ text: 'timeout' }, { json: { retry: true } }] } },
            { text: 'Try again?' },
          ],
        },
      ],
      toolConfig: {
        tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }, { cachePoint: { type: 'default' } }],
        toolChoice: { any: {} },
      },
      outputConfig: { textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: '{"type":"object"}', name: 'out' } } } },
    });
    expect(converseToChat(body)).toEqual([
      { role: 'user', text: 'Weather?' },
      { role: 'assistant', text: 'Looking.', toolCalls: [{ id: 'tu1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', text: 'Error: timeout\n{"retry":true}', toolCallId: 'tu1', toolName: 'get_weather' },
      { role: 'user', text: 'Try again?' },
    ]);
    expect(converseTools(body)).toEqual({
      tools: [{ name: 'get_weather', parameters: { type: 'object' } }],
      toolChoice: { type: 'required' },
      responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' } },
    });
    expect(() =>
      converseTools({ outputConfig: { textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: 'not json' } } } } }),
    ).toThrow(/jsonSchema.schema/);
  });
});
