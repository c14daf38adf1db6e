import type { CatalogModel } from '../catalog/catalog';

/**
 * What a call used that has a price: prompt tokens (`tokensIn`, the cached ones among them),
 * answer tokens, images generated and seconds of audio transcribed.
 */
export interface Billed {
  tokensIn: number;
  /** Of `tokensIn`, those the vendor read from its prompt cache (billed at `cachedInputPerMillion`). */
  cachedTokens?: number;
  tokensOut: number;
  images?: number;
  audioSeconds?: number;
}

/** The model's prices as the catalog gives them (each optional one defaults: cached input to input, the others to 0). */
export type Price = CatalogModel['price'];

/**
 * A call's cost in US dollars at the catalog's prices (docs/spend.md): uncached input, cached input,
 * output, images and audio (per minute, billed by the second: whole seconds, rounded up). A
 * vendor's cached count larger than the prompt is held to the prompt (never a negative input).
 */
export function costOf(price: Price, b: Billed): number {
  const cached = Math.min(Math.max(b.cachedTokens ?? 0, 0), b.tokensIn);
  const tokens =
    (b.tokensIn - cached) * price.inputPerMillion +
    cached * (price.cachedInputPerMillion ?? price.inputPerMillion) +
    b.tokensOut * price.outputPerMillion;
  const images = (b.images ?? 0) * (price.perImage ?? 0);
  const audio = (Math.ceil(b.audioSeconds ?? 0) * (price.audioPerMinute ?? 0)) / 60;
  return tokens / 1e6 + images + audio;
}

/** Dollars as whole nano-dollars: the counters add integers, so a budget's sum is exact whatever the order of calls. */
export const toNanos = (usd: number): number => Math.round(usd * 1e9);
export const fromNanos = (nanos: number): number => nanos / 1e9;

/**
 * The most a call may cost over every model it may reach (its fallbacks'): each model's own bound
 * (a larger model's context bounds its prompt higher) at its own prices, the highest kept.
 */
export function mostCost<F>(bound: (model: CatalogModel, fields: F) => Billed, fields: F, models: readonly CatalogModel[]): number {
  return models.reduce((most, m) => Math.max(most, costOf(m.price, bound(m, fields))), 0);
}
