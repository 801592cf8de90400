/**
 * Keeps the JavaScript engine's own built-in functions when a library loads polyfills over them.
 *
 * pdf.js's legacy build (the one for Node) bundles core-js, which replaces built-ins that V8 already has with
 * JavaScript versions whenever a spec corner case differs: `Array.prototype.push`, `JSON.parse`,
 * `JSON.stringify`, `Function.prototype.toString` on Node 20 and 24. They stay replaced for the whole thread, so
 * after its first PDF a pipeline thread ran every `push` of every later file (wink's tokenizer, chunking, our own
 * code) through core-js: the analyzer cost 7.5 CPU ms per document there against 5.7–6.2 with the natives put
 * back. What a library adds (a method the engine lacks, e.g. `Promise.withResolvers` on Node 20) is kept: only
 * functions that existed before the load and were replaced are restored.
 */

/** The objects whose own function-valued properties are watched (the usual targets of polyfills). */
function watchedObjects(): object[] {
  const typedArray = Object.getPrototypeOf(Uint8Array) as object;
  return [
    Object, Object.prototype, Function.prototype, Array, Array.prototype, String, String.prototype, Number,
    Number.prototype, Math, JSON, Reflect, Symbol, Promise, Promise.prototype, Map.prototype, Set.prototype,
    WeakMap.prototype, RegExp.prototype, Date.prototype, ArrayBuffer.prototype, typedArray,
    (typedArray as { prototype: object }).prototype, Uint8Array, Error, globalThis,
  ];
}

interface Saved {
  target: object;
  key: string | symbol;
  descriptor: PropertyDescriptor;
}

function snapshot(): Saved[] {
  const saved: Saved[] = [];
  for (const target of watchedObjects()) {
    for (const key of Reflect.ownKeys(target)) {
      const descriptor = Object.getOwnPropertyDescriptor(target, key);
      if (descriptor && typeof descriptor.value === 'function') saved.push({ target, key, descriptor });
    }
  }
  return saved;
}

/** Runs `load` and then puts back every built-in function it replaced; returns what `load` returned. */
export async function keepingNativeBuiltins<T>(load: () => Promise<T>): Promise<T> {
  const saved = snapshot();
  try {
    return await load();
  } finally {
    for (const { target, key, descriptor } of saved) {
      const now = Object.getOwnPropertyDescriptor(target, key);
      if (now?.value !== descriptor.value) Object.defineProperty(target, key, descriptor);
    }
  }
}
