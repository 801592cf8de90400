/** Builds the web app (web/) into dist/web, which the service serves at `/`. No CDN: everything is bundled. */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The app is small; one script and one stylesheet, hashed, cached for a year by the service.
    modulePreload: { polyfill: false },
  },
});
