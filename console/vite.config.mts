import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { trustedManifest } from './trusted-manifest.mjs';

/**
 * The console's build (docs/console.md): TypeScript and JSX compiled by Vite's own transformer,
 * bundled into `dist/console` with content-hashed file names (served immutable by
 * gateway/console.ts), no inline script or style (the page's Content Security Policy allows only
 * its own files), no source of the platform's server code. With it, `trusted-documents.json`: the
 * console's operations, which the graph trusts as its built-in `console` app (trusted-manifest.mts).
 */
const outDir = fileURLToPath(new URL('../dist/console', import.meta.url));

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic' } },
  plugins: [trustedManifest({ operationsIndex: fileURLToPath(new URL('./src/operations/index.ts', import.meta.url)), outDir })],
  build: {
    outDir,
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
});
