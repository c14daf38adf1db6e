import type { ChatMessage, ToolDefinition } from './chat';

/**
 * What a token count counts (ModelsService.countTokens): each message's text, as a chat call counts
 * its prompt (chatPromptTokens: the texts, 4 per message, 3 more), then each tool call's name and
 * arguments and each tool's definition as the JSON an upstream would be sent. Without tools, the
 * count is the `input_tokens` local-chat reports for the same messages.
 */
export function promptTexts(messages: readonly ChatMessage[], tools: readonly ToolDefinition[] = []): string[] {
  const calls = messages.flatMap((m) => (m.toolCalls ?? []).map((c) => `${c.name} ${c.arguments}`));
  return [...messages.map((m) => m.text), ...calls, ...tools.map((t) => JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters }))];
}

