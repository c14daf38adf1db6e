import type { Clock } from '../../shared/clock';
import { NotFound } from '../../shared/errors';
import { opaqueId } from '../../shared/ids';
import { InvalidParam } from '../vendors/openai/door-request';
import type { ResponseItem, ResponseStore, StoredResponse } from '../ports';
import { conversationItems, type ConversationItem, type ResponsesRequest } from '../vendors/openai/responses-request';

/**
 * The Responses API's stored responses (OpenAI keeps each response made with `store` not false):
 * a request may continue one (`previous_response_id`: its conversation, then its answer, then the
 * new input; its `instructions` are not carried over) and name the items of earlier answers
 * (`item_reference`). Each response is kept under the key's tenant, with the whole conversation it
 * answered, until it expires; no tenant reads another's.
 */
export class PreviousResponseNotFound extends InvalidParam {
  constructor(id: string) {
    super(`Previous response with id '${id}' not found.`, 'previous_response_id', 'previous_response_not_found');
  }
}

export class ItemNotFound extends NotFound {
  readonly param = 'input';
  constructor(id: string) {
    super(
      `Item with id '${id}' not found. Items are kept only for responses stored (store not false) and not yet expired or deleted: ` +
        'send the item itself instead of a reference.',
      { code: 'item_not_found' },
    );
  }
}

export class ResponseNotFound extends NotFound {
  constructor(id: string) {
    super(`Response with id '${id}' not found.`, { code: 'response_not_found' });
  }
}

export class ConversationTooLarge extends InvalidParam {
  constructor(bytes: number, max: number) {
    super(
      `The conversation is ${bytes} bytes, more than the ${max} this gateway stores per response (MODELS_RESPONSES_MAX_MB): ` +
        'start a new conversation, or send it whole as `input` with `store: false`.',
      'input',
      'conversation_too_large',
    );
  }
}

export interface StoredResponsesOptions {
  store: ResponseStore;
  clock: Clock;
  /** How long a response is kept. */
  ttlMs: number;
  /** The most JSON a stored conversation may hold (its images included). */
  maxBytes: number;
}

export interface InputItemsPage {
  after?: string;
  limit: number;
  order: 'asc' | 'desc';
}

export interface StoredResponses {
  /** The conversation a request asks about: the previous response's (recursively), then its own input, references resolved. */
  conversation(tenant: string, body: ResponsesRequest): Promise<ConversationItem[]>;
  /** Keeps an answered response (the caller checks `store`). */
  keep(tenant: string, r: { id: string; input: ConversationItem[]; response: StoredResponse['response'] }): Promise<void>;
  /** A response of the tenant: 404 when unknown, another tenant's, expired or deleted. */
  get(tenant: string, id: string): Promise<StoredResponse>;
  delete(tenant: string, id: string): Promise<void>;
  /** A page of the conversation a response answered. */
  inputItems(tenant: string, id: string, page: InputItemsPage): Promise<{ data: ResponseItem[]; hasMore: boolean }>;
  /** Deletes the expired responses (a background job). */
  prune(): Promise<number>;
}

const ID_PREFIX: Record<string, string> = { message: 'msg', function_call: 'fc', function_call_output: 'fco', reasoning: 'rs' };

/** Every item of a stored conversation has an id (input_items lists them by id). */
const withId = (item: ConversationItem): ResponseItem =>
  item.id ? item : { ...item, id: `${ID_PREFIX[item.type] ?? 'item'}_${opaqueId()}` };

export function storedResponses(o: StoredResponsesOptions): StoredResponses {
  const now = () => o.clock.now();
  const found = async (tenant: string, id: string) => {
    const r = await o.store.get(tenant, id, now());
    if (!r) throw new ResponseNotFound(id);
    return r;
  };
  return {
    async conversation(tenant, body) {
      const earlier: unknown[] = [];
      if (body.previous_response_id) {
        const prev = await o.store.get(tenant, body.previous_response_id, now());
        if (!prev) throw new PreviousResponseNotFound(body.previous_response_id);
        earlier.push(...prev.input, ...prev.response.output);
      }
      const refs = body.input.flatMap((i) => (i.type === 'item_reference' ? [i.id] : []));
      const items = await o.store.items(tenant, refs, now());
      const own = body.input.map((i) => {
        if (i.type !== 'item_reference') return i;
        const item = items.get(i.id);
        if (!item) throw new ItemNotFound(i.id);
        return item;
      });
      const all = conversationItems([...earlier, ...own]);
      if (body.store !== false) {
        const bytes = Buffer.byteLength(JSON.stringify(all));
        if (bytes > o.maxBytes) throw new ConversationTooLarge(bytes, o.maxBytes);
      }
      return all;
    },
    async keep(tenant, r) {
      const at = now();
      await o.store.put({ id: r.id, tenant, createdAt: at, expiresAt: at + o.ttlMs, response: r.response, input: r.input.map(withId) });
    },
    get: found,
    async delete(tenant, id) {
      if (!(await o.store.delete(tenant, id, now()))) throw new ResponseNotFound(id);
    },
    async inputItems(tenant, id, page) {
      const { input } = await found(tenant, id);
      const ordered = page.order === 'asc' ? input : [...input].reverse();
      const start = page.after ? ordered.findIndex((i) => i.id === page.after) + 1 : 0;
      const data = ordered.slice(start, start + page.limit);
      return { data, hasMore: start + page.limit < ordered.length };
    },
    prune: () => o.store.prune(now()),
  };
}
