/**
 * `filesift pull-model`: downloads all-MiniLM-L6-v2 or bge-small-en-v1.5 (or what a manifest lists) into the folder the service
 * loads its transformer from, with a progress bar and checksum checks, then loads it once to prove it works.
 * A running service notices the new model within a minute and re-embeds the index in the background.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, dataDirFromEnv, MODEL_NAMES, MODEL_VARIANTS, modelPullFromEnv, type ModelName, type ModelVariant } from '../config.js';
import { defaultModelDir } from '../models/resolve.js';
import { isTransformerDir } from '../pipeline/embedders/index.js';
import { pullPlan } from '../models/pull-plan.js';
import { createPullProgressBar } from '../models/pull-progress.js';
import { pullModel } from '../models/pull.js';
import { TransformerEmbedder } from '../pipeline/embedders/transformer.js';

export const PULL_MODEL_USAGE = `Usage: filesift pull-model [options]

Downloads a sentence-transformers model (ONNX) into <FILESIFT_DATA_DIR>/models/<model>, where the service looks
for it (the service uses FILESIFT_MODEL's), verifying every file's size and sha256. Files already present and
intact are not downloaded again.

Options:
  --model NAME         all-MiniLM-L6-v2 (default; fast) or bge-small-en-v1.5 (better, about 3 times the indexing time)
  --variant int8|fp32  int8 (default: MiniLM 23 MB, bge 34 MB, about twice as fast on CPU) or fp32 (90 / 133 MB)
  --dir DIR            Download into DIR instead (then point FILESIFT_MODEL_DIR at it)
  --base-url URL       A mirror of the model hub (default https://huggingface.co/Xenova/<model>/resolve/main)
  --manifest FILE      Advanced: pull the files a JSON manifest lists instead (see README)
  -h, --help           Show this help

Environment: FILESIFT_DATA_DIR, FILESIFT_MODEL, FILESIFT_MODEL_VARIANT, FILESIFT_MODEL_BASE_URL and
FILESIFT_MODEL_MANIFEST give the defaults of these options.`;

export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Runs the command; answers the process exit code (0 done, 1 failed, 130 interrupted). */
export async function pullModelCommand(argv: string[], env: NodeJS.ProcessEnv, io: CommandIo, signal?: AbortSignal): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      model: { type: 'string' },
      variant: { type: 'string' },
      dir: { type: 'string' },
      'base-url': { type: 'string' },
      manifest: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout.write(`${PULL_MODEL_USAGE}\n`);
    return 0;
  }
  const fromEnv = modelPullFromEnv(env);
  const variant = (values.variant ?? fromEnv.modelVariant) as ModelVariant;
  if (!MODEL_VARIANTS.includes(variant)) throw new ConfigError(`--variant must be one of ${MODEL_VARIANTS.join(', ')}, got '${variant}'`);
  const model = values.model === undefined ? fromEnv.model : MODEL_NAMES.find((m) => m.toLowerCase() === values.model!.toLowerCase());
  if (!model) throw new ConfigError(`--model must be one of ${MODEL_NAMES.join(', ')}, got '${values.model}'`);
  const baseUrl = values['base-url'] ?? fromEnv.modelBaseUrl;
  if (baseUrl !== null && !/^https?:\/\//.test(baseUrl)) throw new ConfigError('--base-url must start with http:// or https://');
  const dir = path.resolve(values.dir ?? defaultModelDir(dataDirFromEnv(env), model as ModelName));
  const planned = pullPlan({ model, variant, baseUrl, manifest: values.manifest ? path.resolve(values.manifest) : fromEnv.modelManifest });
  if (!planned.ok) throw new ConfigError(planned.reason);
  const { plan } = planned;

  const configured = env.FILESIFT_MODEL_DIR?.trim();
  if (configured && path.resolve(configured) !== dir) {
    io.stderr.write(`note: FILESIFT_MODEL_DIR is set to ${path.resolve(configured)}: the service loads that folder, not ${dir}\n`);
  }
  if (!values.dir && !configured && !values.manifest && model !== fromEnv.model) {
    io.stderr.write(`note: the service uses FILESIFT_MODEL=${fromEnv.model}; start it with FILESIFT_MODEL=${model} to use this one\n`);
  }
  io.stderr.write(`pulling ${plan.model} from ${plan.baseUrl} into ${dir}\n`);
  const bar = createPullProgressBar({ stream: io.stderr });
  const result = await pullModel({ baseUrl: plan.baseUrl, destDir: dir, files: plan.files, ...(plan.card ? { card: plan.card } : {}), onProgress: bar.onProgress, signal });
  bar.stop();
  if (!result.ok) {
    if (result.code === 'aborted') {
      io.stderr.write('filesift: pull-model interrupted; nothing partial was kept\n');
      return 130;
    }
    io.stderr.write(`filesift: pull-model failed (${result.code}) on ${result.file}: ${result.reason}\n`);
    return 1;
  }
  if (!isTransformerDir(dir)) {
    io.stderr.write(`filesift: ${dir} now holds the listed files but no model.onnx and tokenizer: the service cannot load it\n`);
    return 1;
  }
  try {
    const embedder = await TransformerEmbedder.load(dir);
    io.stderr.write(`${plan.model} is ready in ${dir} (${embedder.info.model}, dimension ${embedder.info.dimension}).\n`);
    await embedder.close();
  } catch (err) {
    io.stderr.write(`filesift: the downloaded model in ${dir} does not load: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  io.stderr.write('A running service switches to it within a minute and re-embeds the index in the background.\n');
  io.stdout.write(`${dir}\n`);
  return 0;
}
