/**
 * `filesift pull-model`: downloads all-MiniLM-L6-v2 or bge-small-en-v1.5 (or what a manifest lists) into the folder the service
 * loads its transformer from, with a progress bar and checksum checks, then loads it once to prove it works.
 * A running service notices the new model within a minute and re-embeds the index in the background.
 */
import path from 'node:path';
import { dataDirFromEnv, MODEL_NAMES, MODEL_VARIANTS, modelPullFromEnv, type ModelName } from '../config.js';
import { choiceOption, UsageError } from '../lib/command-line.js';
import { CliError, defineCommand, type CliIo } from './program.js';

export const pullModelCommand = defineCommand({
  name: 'pull-model',
  summary: 'Download an embedding model: all-MiniLM-L6-v2 or bge-small-en-v1.5 (checksums verified)',
  spec: {
    command: 'filesift pull-model',
    about:
      'Downloads a sentence-transformers model (ONNX) into <FILESIFT_DATA_DIR>/models/<model>, where the service looks for it ' +
      "(the service uses FILESIFT_MODEL's), verifying every file's size and sha256; files already present and intact are not downloaded again.",
    options: {
      model: { type: 'string', value: 'NAME', description: 'all-MiniLM-L6-v2 (default; fast) or bge-small-en-v1.5 (better, about 3 times the indexing time)', choices: MODEL_NAMES },
      variant: { type: 'string', value: 'int8|fp32', description: 'int8 (default: MiniLM 23 MB, bge 34 MB, about twice as fast on CPU) or fp32 (90 / 133 MB)', choices: MODEL_VARIANTS },
      dir: { type: 'string', value: 'DIR', description: 'download into DIR instead (then point FILESIFT_MODEL_DIR at it)', complete: 'directory' },
      'base-url': { type: 'string', value: 'URL', description: 'a mirror of the model hub (default https://huggingface.co/Xenova/<model>/resolve/main)' },
      manifest: { type: 'string', value: 'FILE', description: 'advanced: pull the files a JSON manifest lists instead (see README)', complete: 'file' },
    },
    notes: ['Environment: FILESIFT_DATA_DIR, FILESIFT_MODEL, FILESIFT_MODEL_VARIANT, FILESIFT_MODEL_BASE_URL and FILESIFT_MODEL_MANIFEST give the defaults of these options.'],
  },
  run: ({ values }, io) => pullTheModel(values, io),
});

/** Pulls; answers the process exit code (0 done, 1 failed, 130 interrupted). */
async function pullTheModel(values: { model?: string | undefined; variant?: string | undefined; dir?: string | undefined; 'base-url'?: string | undefined; manifest?: string | undefined }, io: CliIo): Promise<number> {
  const { env, signal } = io;
  // The model's modules (onnxruntime among them) load only for this command.
  const [{ defaultModelDir }, { isTransformerDir }, { pullPlan }, { createPullProgressBar }, { pullModel }, { TransformerEmbedder }] = await Promise.all([
    import('../models/resolve.js'),
    import('../pipeline/embedders/index.js'),
    import('../models/pull-plan.js'),
    import('../models/pull-progress.js'),
    import('../models/pull.js'),
    import('../pipeline/embedders/transformer.js'),
  ]);
  const fromEnv = modelPullFromEnv(env);
  const variant = choiceOption('variant', values.variant, MODEL_VARIANTS, fromEnv.modelVariant);
  const model: ModelName = values.model === undefined ? fromEnv.model : choiceOption('model', values.model, MODEL_NAMES);
  const baseUrl = values['base-url'] ?? fromEnv.modelBaseUrl;
  if (baseUrl !== null && !/^https?:\/\//.test(baseUrl)) throw new UsageError('--base-url must start with http:// or https://');
  const dir = path.resolve(io.cwd, values.dir ?? defaultModelDir(dataDirFromEnv(env), model));
  const planned = pullPlan({ model, variant, baseUrl, manifest: values.manifest ? path.resolve(io.cwd, values.manifest) : fromEnv.modelManifest });
  if (!planned.ok) throw new CliError(planned.reason);
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
