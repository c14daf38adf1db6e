import type { ImageRequest } from './chat';

/** Placeholder until the local image model lands (replaced by its own module). */
export async function localImage(_req: ImageRequest): Promise<{ b64: string; mimeType: string }> {
  return { b64: '', mimeType: 'image/png' };
}
