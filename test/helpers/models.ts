import { existsSync } from 'node:fs';
import path from 'node:path';

/** Model folders scripts/fetch-models.sh lays out in the model cache. */
export type RealModel = 'all-MiniLM-L6-v2-int8' | 'bge-small-en-v1.5-int8' | 'all-MiniLM-L6-v2-fp32' | 'bge-small-en-v1.5-fp32';

const FETCH = 'bash scripts/fetch-models.sh [--all] DIR, then export FILESIFT_MODEL_CACHE=DIR';

/**
 * The folder of a real model from the cache FILESIFT_MODEL_CACHE names (filled by scripts/fetch-models.sh from
 * Maven Central), or why it is not there: a value, so a test or benchmark can say exactly what is missing.
 */
export function realModelDir(model: RealModel, env: NodeJS.ProcessEnv = process.env): { ok: true; dir: string } | { ok: false; reason: string } {
  const cache = env.FILESIFT_MODEL_CACHE?.trim();
  if (!cache) return { ok: false, reason: `FILESIFT_MODEL_CACHE is not set: no real model (${model}) to run; ${FETCH}` };
  const dir = path.join(path.resolve(cache), model);
  const missing = ['model.onnx', 'tokenizer.json', 'filesift-model.json'].filter((f) => !existsSync(path.join(dir, f)));
  if (missing.length > 0) return { ok: false, reason: `${dir} lacks ${missing.join(', ')}; ${FETCH}` };
  return { ok: true, dir };
}

/**
 * A suite that runs on a real model. Without the model cache it is skipped with the reason, except in CI
 * (FILESIFT_REQUIRE_MODELS=1, set by .ci/run), where a missing model is an error, never a silent skip.
 */
export function describeWithRealModel(model: RealModel, title: string, suite: (dir: string) => void): void {
  const found = realModelDir(model);
  if (!found.ok) {
    if (process.env.FILESIFT_REQUIRE_MODELS === '1') throw new Error(`FILESIFT_REQUIRE_MODELS=1 but ${found.reason}`);
    describe(`${title} [${model}]`, () => {
      it(`needs the real model: ${found.reason}`, function () {
        this.skip();
      });
    });
    return;
  }
  describe(`${title} [${model}]`, () => suite(found.dir));
}
