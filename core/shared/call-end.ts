/**
 * How a metered call ended (core/models/pipeline.ts records it): answered, its caller gone before
 * the end, or failed (refused at the door, by the pipeline's checks, or by the upstream). The core
 * names no HTTP status: the number a usage row keeps for an end (`status`, the metrics' label, the
 * span's attribute) is the composition root's `StatusOf` (the HTTP edge's, edge/http/call-status.ts).
 */
export type CallEnd = 'ok' | 'left' | { failed: unknown };

/** The number a usage row keeps for how its call ended. */
export type StatusOf = (end: CallEnd) => number;
