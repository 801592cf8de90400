/**
 * Thin adapter over onnxruntime-node: the only module of the embedders that imports it. Sessions run
 * single-threaded by default because the indexing pool already gives each worker thread one core.
 */
import ort from 'onnxruntime-node';

export interface SessionOptions {
  /** Threads for one operator (default 1). */
  intraOpThreads?: number;
}

export interface FloatOutput {
  data: Float32Array;
  dims: readonly number[];
}

export interface OnnxSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** Runs the graph on int64 inputs of shape [batch, seq]; returns the named float output. */
  run(inputs: Record<string, BigInt64Array>, dims: [number, number], output: string): Promise<FloatOutput>;
  close(): Promise<void>;
}

export async function openSession(model: string | Uint8Array, options: SessionOptions = {}): Promise<OnnxSession> {
  const threads = options.intraOpThreads ?? 1;
  if (!Number.isInteger(threads) || threads < 1) {
    throw new Error(`options.intraOpThreads must be a positive integer (got ${String(threads)})`);
  }
  const sessionOptions: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3, // errors only: ORT's warnings about unused initializers are noise here
  };
  const session =
    typeof model === 'string'
      ? await ort.InferenceSession.create(model, sessionOptions)
      : await ort.InferenceSession.create(model, sessionOptions);
  return {
    inputNames: session.inputNames,
    outputNames: session.outputNames,
    async run(inputs, dims, output) {
      const feeds: Record<string, ort.Tensor> = {};
      for (const [name, data] of Object.entries(inputs)) feeds[name] = new ort.Tensor('int64', data, dims);
      const result = await session.run(feeds, [output]);
      const tensor = result[output];
      if (tensor === undefined || tensor.type !== 'float32') {
        throw new Error(`model output ${output} is missing or not float32`);
      }
      const data = tensor.data as Float32Array;
      const out = { data, dims: tensor.dims };
      for (const t of Object.values(feeds)) t.dispose();
      return out;
    },
    close: () => session.release(),
  };
}
