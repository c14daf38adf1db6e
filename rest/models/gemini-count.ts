import type { Ctx } from '../../core/shared/context';
import { isPlainObject } from '../../core/shared/validation';
import { GenerateContentRequest, InvalidArgument, geminiBody, geminiToChat } from '../../core/models/vendors/gemini';
import type { KeyCaller, Metered, ModelsService } from '../../core/models/service';

/**
 * Gemini's `models/{model}:countTokens`: `{"contents": [...]}` or `{"generateContentRequest":
 * {...}}` (system instruction and tools counted too), read as generateContent reads them, answered
 * `{"totalTokens": n}` with the gateway's count (ModelsService.countTokens).
 */
export async function geminiCountTokens(models: ModelsService, m: Metered, body: unknown, ctx: Ctx<KeyCaller>) {
  const counted = await models.countTokens(
    {
      ...m,
      read: () => {
        const b = isPlainObject(body) ? body : {};
        const whole = b.generateContentRequest ?? b.generate_content_request;
        if (whole !== undefined && b.contents !== undefined) {
          throw new InvalidArgument([{ field: 'contents', description: 'Send contents or generateContentRequest, not both' }]);
        }
        const { messages, tools } = geminiToChat(geminiBody(GenerateContentRequest, whole ?? { contents: b.contents }));
        return { messages, tools };
      },
    },
    ctx,
  );
  return { totalTokens: counted.tokens };
}
