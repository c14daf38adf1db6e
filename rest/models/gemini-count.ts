import type { Ctx } from '../../core/shared/context';
import { isPlainObject } from '../../core/shared/validation';
import type { ToolDefinition } from '../../core/models/chat';
import { GenerateContentRequest, InvalidArgument, geminiBody, geminiToChat } from '../../core/models/gemini-wire';
import type { KeyCaller, Metered, ModelsService } from '../../core/models/service';
import { refusing } from '../../core/models/refusing';

/**
 * Gemini's `models/{model}:countTokens`: `{"contents": [...]}` or `{"generateContentRequest":
 * {...}}` (system instruction and tools counted too), read as generateContent reads them, answered
 * `{"totalTokens": n}` with the gateway's count (ModelsService.countTokens).
 */
export async function geminiCountTokens(models: ModelsService, m: Metered, body: unknown, ctx: Ctx<KeyCaller>) {
  const prompt = await refusing(models, m, ctx, () => {
    const b = isPlainObject(body) ? body : {};
    const whole = b.generateContentRequest ?? b.generate_content_request;
    if (whole !== undefined && b.contents !== undefined) {
      throw new InvalidArgument([{ field: 'contents', description: 'Send contents or generateContentRequest, not both' }]);
    }
    const { messages, ...call } = geminiToChat(geminiBody(GenerateContentRequest, whole ?? { contents: b.contents }));
    // The tools, where the wire reads them (function declarations): counted as their definitions.
    return { messages, tools: (call as { tools?: ToolDefinition[] }).tools };
  });
  return { totalTokens: (await models.countTokens({ ...m, ...prompt }, ctx)).tokens };
}
