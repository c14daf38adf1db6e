import { BadRequest } from '../../shared/errors';

/**
 * Guardrails (DECISIONS `use_guard`): detectors over the text of a request (and, with 2, of the
 * answer). PII and secrets are redacted (replaced by a label) before the text goes upstream;
 * prompt injection and toxicity block the call with 400 `guardrail_violation` naming the detectors,
 * never echoing what matched.
 */
export type Detector = 'email' | 'phone' | 'card' | 'iban' | 'national_id' | 'ip' | 'secret' | 'prompt_injection' | 'toxicity';

export class GuardrailViolation extends BadRequest {
  constructor(readonly detectors: Detector[]) {
    super(`The request was blocked by the guardrails: ${detectors.join(', ')}`, { code: 'guardrail_violation' });
  }
}

const luhn = (digits: string) => {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
};

const ibanValid = (iban: string) => {
  const s = iban.replace(/\s+/g, '').toUpperCase();
  const moved = (s.slice(4) + s.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const ch of moved) rest = (rest * 10 + Number(ch)) % 97;
  return rest === 1;
};

interface Redactor {
  detector: Detector;
  pattern: RegExp;
  label: string;
  valid?: (match: string) => boolean;
}

const REDACTORS: Redactor[] = [
  {
    detector: 'secret',
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
    label: '[PRIVATE_KEY]',
  },
  {
    detector: 'secret',
    pattern:
      /\b(sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}|xox[abp]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|lmk-[\w-]{43})\b/g,
    label: '[SECRET]',
  },
  // Starts only where a run of address characters starts: from a word boundary (`\b`), a long run
  // of letters and dots without an `@` was scanned to its end again from each of its dots.
  { detector: 'email', pattern: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/g, label: '[EMAIL]' },
  { detector: 'iban', pattern: /\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?\b/g, label: '[IBAN]', valid: ibanValid },
  { detector: 'card', pattern: /\b(?:\d[ -]?){12,18}\d\b/g, label: '[CARD]', valid: (m) => luhn(m.replace(/\D/g, '')) },
  { detector: 'national_id', pattern: /\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b/g, label: '[NATIONAL_ID]' },
  { detector: 'ip', pattern: /\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b/g, label: '[IP]' },
  // Not inside a longer run of digit groups (card numbers, ids): nothing digit-like just before or after.
  {
    detector: 'phone',
    pattern: /(?<![\w+])(?<!\d[ .-])(\+\d{1,3}[ .-]?)?(\(\d{2,4}\)|\d{2,4})[ .-]\d{3,4}[ .-]\d{3,4}(?![ .-]?\d)/g,
    label: '[PHONE]',
  },
];

const INJECTION = [
  /\bignore (all |any )?(the )?(previous|prior|above|earlier) (instructions|prompts|rules)\b/i,
  /\bdisregard (all |any )?(the )?(previous|prior|above|system) (instructions|prompt|rules)\b/i,
  /\b(reveal|print|show|repeat) (me )?(your|the) (system prompt|hidden instructions|initial instructions)\b/i,
  /\byou are now (DAN|in developer mode|jailbroken)\b/i,
  /\bforget (all |everything )?(you were told|your instructions|previous instructions)\b/i,
];

// A short list of slurs and threats; a classifier through the gateway can replace it.
const TOXIC = /\b(kill yourself|kys|i will kill you|go die|fuck(ing)? (you|off)|piece of shit|retard(ed)?|whore|slut)\b/i;

export interface GuardResult {
  text: string;
  redacted: Detector[];
}

/** The text with PII and secrets replaced by labels, and which detectors fired. */
export function redact(text: string): GuardResult {
  const fired = new Set<Detector>();
  let out = text;
  for (const r of REDACTORS) {
    out = out.replace(r.pattern, (m) => {
      if (r.valid && !r.valid(m)) return m;
      fired.add(r.detector);
      return r.label;
    });
  }
  return { text: out, redacted: [...fired] };
}

/** Throws GuardrailViolation for prompt injection or toxicity; else the text redacted. */
export function guardInput(text: string): GuardResult {
  const blocked: Detector[] = [];
  if (INJECTION.some((p) => p.test(text))) blocked.push('prompt_injection');
  if (TOXIC.test(text)) blocked.push('toxicity');
  if (blocked.length) throw new GuardrailViolation(blocked);
  return redact(text);
}

/** What the input guard makes of a prompt's texts: user texts checked and redacted, the others redacted. */
export interface GuardedTexts {
  texts: string[];
  redacted: Detector[];
  /** Prompt injection or toxicity found in a user text: the call is refused (GuardrailViolation). */
  blocked: Detector[];
}

/** The input guard over a prompt, as data (it runs in a worker thread for long prompts). */
export function guardTexts(messages: readonly { role: string; text: string }[]): GuardedTexts {
  const redacted = new Set<Detector>();
  const blocked = new Set<Detector>();
  const texts = messages.map((m) => {
    try {
      const g = m.role === 'user' ? guardInput(m.text) : redact(m.text);
      g.redacted.forEach((x) => redacted.add(x));
      return g.text;
    } catch (err) {
      if (!(err instanceof GuardrailViolation)) throw err;
      err.detectors.forEach((x) => blocked.add(x));
      return '';
    }
  });
  return { texts, redacted: [...redacted], blocked: [...blocked] };
}

/**
 * The answer's pieces with PII and secrets redacted as they flow (`use_guard` 2): text is held back
 * until a space at least `hold` characters from its end, so a match split across two pieces is
 * still whole when it is checked (one spread over more than `hold` characters of spaces is not;
 * nor, past `4 × hold` characters without a space, one that spans the cut made there).
 * Toxic output ends the answer (`finish_reason` `content_filter`), reported through `onBlock`.
 */
export async function* guardOutput(pieces: AsyncIterable<string>, onBlock: () => void, hold = 100): AsyncGenerator<string> {
  let pending = '';
  for await (const piece of pieces) {
    pending += piece;
    if (TOXIC.test(pending)) {
      onBlock();
      return;
    }
    let cut = pending.lastIndexOf(' ', pending.length - hold);
    // An answer without spaces is not held back without end (each piece would rescan all of it).
    if (cut <= 0 && pending.length > 4 * hold) cut = pending.length - hold - 1;
    if (cut > 0) {
      yield redact(pending.slice(0, cut + 1)).text;
      pending = pending.slice(cut + 1);
    }
  }
  if (pending) yield redact(pending).text;
}
