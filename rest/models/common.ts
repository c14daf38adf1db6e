import type { Request, Response } from 'express';
import { Unauthenticated } from '../../core/shared/errors';
import type { ChatCall, KeyCaller } from '../../core/models/service';
import { defineFor } from '../shared/routes';

/** A gateway route: its caller is the LM key's (the router establishes it before the handler runs). */
export const define = defineFor<KeyCaller>();

/** `x-cache: HIT|MISS|BYPASS`, `x-platform-deployment: <model>@<deployment>` that answered, and `x-guard` naming what the guardrails redacted. */
export function gatewayHeaders(res: Response, call: Pick<ChatCall, 'cache' | 'guard' | 'deployment'>) {
  res.set('x-cache', call.cache);
  if (call.deployment) res.set('x-platform-deployment', call.deployment);
  if (call.guard.startsWith('redacted')) res.set('x-guard', call.guard);
}

export class SigV4NotAccepted extends Unauthenticated {
  constructor() {
    super(
      'AWS Signature Version 4 is not accepted here: send the LM key as a bearer token (a Bedrock API key: ' +
        'AWS_BEARER_TOKEN_BEDROCK, or token: { token: <key> } with authSchemePreference: ["httpBearerAuth"]) or in the api-key header',
      { code: 'sigv4_not_supported' },
    );
  }
}

/**
 * The LM key wherever a vendor's SDK puts it: `api-key` (Azure's), `x-api-key` (Anthropic's),
 * else `Authorization: Bearer <key>` (OpenAI's, Anthropic's `authToken`, Bedrock API keys); options
 * follow the key after a slash in each. A SigV4 signature is refused with a message saying what to send.
 */
function lmKeyOf(req: Request): string | undefined {
  const header = req.get('api-key') ?? req.get('x-api-key');
  if (header) return header;
  const auth = req.get('authorization')?.trim();
  if (!auth) return undefined;
  if (/^AWS4-HMAC-SHA256\b/i.test(auth)) throw new SigV4NotAccepted();
  return /^Bearer\s+(\S.*)$/i.exec(auth)?.[1];
}

/** Where the gateway's clients put the LM key (the router presents it to the gateway's credentials). */
export const lmKey = (req: Request) => ({ 'api-key': lmKeyOf(req) });
