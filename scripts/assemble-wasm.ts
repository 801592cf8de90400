/**
 * `npm run build:wasm`: assembles the hand-written WebAssembly of src/ (WAT text) into the TypeScript modules that
 * carry its bytes (base64), so that neither the build nor the service needs an assembler. Run it after changing a
 * .wat file; a test assembles each again and fails when the two differ (test/store/vectors/packed-dot.test.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assembleWat, WASM_SOURCES, wasmModuleText } from './lib/wasm.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
for (const source of WASM_SOURCES) {
  const bytes = await assembleWat(readFileSync(path.join(root, source.wat), 'utf8'), source.wat);
  writeFileSync(path.join(root, source.ts), wasmModuleText(source, bytes));
  console.log(`${source.wat}: ${bytes.byteLength} bytes into ${source.ts}`);
}
