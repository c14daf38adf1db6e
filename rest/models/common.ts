import type { Response } from 'express';
import type { ChatCall, KeyCaller } from '../../core/models/service';
import { defineFor } from '../shared/routes';

/** A gateway route: its caller is the LM key's (the router establishes it before the handler runs). */
export const define = defineFor<KeyCaller>();

/** `x-cache: HIT|MISS|BYPASS`, and `x-guard` naming what the guardrails redacted. */
export function gatewayHeaders(res: Response, call: Pick<ChatCall, 'cache' | 'guard'>) {
  res.set('x-cache', call.cache);
  if (call.guard.startsWith('redacted')) res.set('x-guard', call.guard);
}
