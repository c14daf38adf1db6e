import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { BadRequest } from '../../../shared/errors';
import type { ImageRequest } from '../../neutral';

/**
 * The built-in offline image model (`local-image`). There are no weights to run here, so it does
 * not depict the prompt: it paints an abstract picture (a two-colour gradient under soft discs)
 * whose colours, angle and shapes come from a hash of the prompt, so the same prompt and size give
 * the same bytes and different prompts different pictures. `style: natural` mutes the palette.
 * Encoded as an 8-bit RGB PNG with node:zlib; a 1024x1024 picture takes a few tens of milliseconds.
 */
const DEFAULT_SIDE = 1024;
/** The largest side any OpenAI size names (1792x1024): bounds the work whatever the caller asks. */
const MAX_SIDE = 1792;

/** `WxH` in pixels; the default when absent or `auto`. */
export function imageSize(size: string | undefined): { width: number; height: number } {
  if (!size || size === 'auto') return { width: DEFAULT_SIDE, height: DEFAULT_SIDE };
  const m = /^(\d{1,4})x(\d{1,4})$/.exec(size);
  const [width, height] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE) {
    throw new BadRequest(`Unsupported size ${JSON.stringify(size)}: WIDTHxHEIGHT, each side at most ${MAX_SIDE}`, { code: 'invalid_size' });
  }
  return { width, height };
}

/** A small seeded generator (mulberry32): the picture's only source of variety is the prompt. */
function seeded(prompt: string) {
  let s = createHash('sha256').update(prompt, 'utf8').digest().readUInt32LE(0);
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Rgb = [number, number, number];

function hsl(h: number, s: number, l: number): Rgb {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h * 12) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

/** Scanlines as PNG wants them: a filter byte (0, none) before each row of RGB triples. */
function paint(width: number, height: number, random: () => number, saturation: number): Buffer {
  const stride = 1 + width * 3;
  const raw = Buffer.alloc(stride * height);
  const hue = random();
  const from = hsl(hue, saturation, 0.25 + random() * 0.2);
  const to = hsl((hue + 0.25 + random() * 0.3) % 1, saturation, 0.55 + random() * 0.2);
  const angle = random() * 2 * Math.PI;
  const [dx, dy] = [Math.cos(angle), Math.sin(angle)];
  const reach = Math.abs(dx) * width + Math.abs(dy) * height;
  const [dr, dg, db] = [to[0] - from[0], to[1] - from[1], to[2] - from[2]];
  for (let y = 0; y < height; y++) {
    // t (0..1) is the pixel's place along the gradient's direction; it grows by dx/reach per pixel.
    let t = ((-width / 2) * dx + (y - height / 2) * dy) / reach + 0.5;
    for (let x = 0, o = y * stride + 1; x < width; x++, o += 3, t += dx / reach) {
      raw[o] = from[0] + dr * t;
      raw[o + 1] = from[1] + dg * t;
      raw[o + 2] = from[2] + db * t;
    }
  }
  const discs = 4 + Math.floor(random() * 5);
  const side = Math.min(width, height);
  for (let i = 0; i < discs; i++) {
    const [cx, cy, r] = [random() * width, random() * height, side * (0.08 + random() * 0.27)];
    const colour = hsl((hue + random() * 0.6) % 1, saturation, 0.35 + random() * 0.45);
    const opacity = 0.35 + random() * 0.45;
    const [r2, inner2] = [r * r, 0.64 * r * r];
    for (let y = Math.max(0, Math.floor(cy - r)); y <= Math.min(height - 1, Math.ceil(cy + r)); y++) {
      const dy2 = (y - cy) ** 2;
      if (dy2 >= r2) continue;
      const half = Math.sqrt(r2 - dy2);
      for (let x = Math.max(0, Math.ceil(cx - half)), o = y * stride + 1 + x * 3; x <= Math.min(width - 1, cx + half); x++, o += 3) {
        const d2 = (x - cx) ** 2 + dy2;
        // Soft rim: full opacity inside 80% of the radius, fading to none at the edge.
        const a = d2 < inner2 ? opacity : opacity * Math.max(0, 1 - Math.sqrt(d2) / r) * 5;
        raw[o] += (colour[0] - raw[o]) * a;
        raw[o + 1] += (colour[1] - raw[o + 1]) * a;
        raw[o + 2] += (colour[2] - raw[o + 2]) * a;
      }
    }
  }
  return raw;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** An RGB PNG of `raw` scanlines. A low deflate level: speed matters more than a few kilobytes. */
export function encodePng(width: number, height: number, raw: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits per channel, truecolour, deflate, adaptive filtering, no interlace
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 1 })), chunk('IEND', Buffer.alloc(0))]);
}

export async function localImage(req: ImageRequest): Promise<{ b64: string; mimeType: string; revisedPrompt: string }> {
  const { width, height } = imageSize(req.size);
  const raw = paint(width, height, seeded(req.prompt), req.style === 'natural' ? 0.35 : 0.75);
  return {
    b64: encodePng(width, height, raw).toString('base64'),
    mimeType: 'image/png',
    // Said plainly, so nobody mistakes the offline picture for a rendering of the prompt.
    revisedPrompt: `An abstract picture seeded by the prompt: ${req.prompt}`,
  };
}
