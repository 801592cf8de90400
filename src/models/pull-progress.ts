/**
 * A terminal progress bar for pullModel (cli-progress): one bar per file, with megabytes and ETA.
 * Writes to stderr by default, so a CLI's stdout stays clean for results.
 */
import cliProgress from 'cli-progress';
import type { PullProgress } from './pull.js';

export interface ProgressBarOptions {
  stream?: NodeJS.WritableStream;
  /** Draw even when the stream is not a terminal (default: only on a TTY, else one line per file). */
  forceRedraw?: boolean;
}

const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);

/** Returns an onProgress callback for pullModel and a stop() to call when the pull ends. */
export function createPullProgressBar(options: ProgressBarOptions = {}): {
  onProgress: (p: PullProgress) => void;
  stop: () => void;
} {
  const stream = options.stream ?? process.stderr;
  let bar: cliProgress.SingleBar | undefined;
  let current = -1;
  const stop = (): void => {
    bar?.stop();
    bar = undefined;
  };
  const onProgress = (p: PullProgress): void => {
    if (p.phase === 'skipped') {
      stop();
      stream.write(`${p.file}: already present, checksum ok\n`);
      return;
    }
    if (p.fileIndex !== current || bar === undefined) {
      stop();
      current = p.fileIndex;
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: `[${p.fileIndex + 1}/${p.fileCount}] {file} |{bar}| {percentage}% {receivedMb}/{totalMb} MB eta {eta_formatted}`,
          noTTYOutput: options.forceRedraw ?? false,
          hideCursor: true,
          fps: 10,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(p.total ?? 0, 0, { file: p.file, receivedMb: mb(0), totalMb: p.total !== undefined ? mb(p.total) : '?' });
    }
    if (p.total !== undefined && bar.getTotal() !== p.total) bar.setTotal(p.total);
    bar.update(p.received, { receivedMb: mb(p.received) });
    if (p.phase === 'done') {
      stop();
      if (!(stream as NodeJS.WriteStream).isTTY && options.forceRedraw !== true) {
        stream.write(`${p.file}: ${mb(p.received)} MB, checksum ok\n`);
      }
    }
  };
  return { onProgress, stop };
}
