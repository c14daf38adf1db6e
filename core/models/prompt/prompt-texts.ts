import type { ChatMessage, ResponseFormat, ToolDefinition } from '../neutral';

/**
 * What a prompt's token count counts (a chat call's context check and usage, ModelsService.countTokens):
 * each message's text (chatPromptTokens adds 4 per message and 3 more), then each tool call's name
 * and arguments, each tool's definition and the response format's schema as the JSON an upstream
 * would be sent: vendors put tool definitions in the prompt, and count and bill them as input.
 * Without tools or a schema, the count is the messages' texts alone.
 */
export function promptTexts(messages: readonly ChatMessage[], tools: readonly ToolDefinition[] = [], format?: ResponseFormat): string[] {
  const calls = messages.flatMap((m) => (m.toolCalls ?? []).map((c) => `${c.name} ${c.arguments}`));
  const schema =
    format?.type === 'json_schema' ? [JSON.stringify({ name: format.name, description: format.description, schema: format.schema })] : [];
  return [
    ...messages.map((m) => m.text),
    ...calls,
    ...tools.map((t) => JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters })),
    ...schema,
  ];
}
