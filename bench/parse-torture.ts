/**
 * Parser torture: every file of a folder through parse, analyze and embed, each in a process of its own with the
 * service's per-file timeout, printing per-file time, peak resident memory and outcome, then the checks of issue
 * 16 over the whole set: nothing timed out or crashed, peak memory under 1 GB, no binary indexed as text.
 *   npm run bench:torture -- [DIR] [--hostile] [--timeout S]
 * DIR defaults to ../shared/datasets/formats (the Apache Tika test documents); --hostile adds the generated
 * hostile set (test/helpers/torture-files.ts: a 500,000-page PDF, a spine-bomb EPUB, a 5M-tag DOCX, a 2M-deep HTML,
 * a 92 MB text file, a 50,000-character word, FITS, p7m, Big5 MSG, archive bombs (ZIP, tar.gz, 7z, 60,000 members,
 * 20 levels deep), ...), written to a temporary folder.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedPath } from '../test/helpers/shared.js';
import { listFiles } from './lib/files.js';
import { positiveInt, readBenchArgs } from './lib/cli.js';
import { TORTURE_FILES, writeTortureFiles } from '../test/helpers/torture-files.js';

const { dir, hostile, timeoutS, maxTextChars, maxFileMb } = readBenchArgs(
  {
    command: 'npm run bench:torture --',
    about: 'Every file of a folder through parse, analyze and embed, one process each: time, peak RSS, outcome.',
    positional: { name: 'DIR', description: 'folder to read, recursively (default ../shared/datasets/formats)' },
    options: {
      hostile: { type: 'boolean', description: 'also generate and run the hostile set (about 200 MB in a temporary folder)' },
      timeout: { type: 'string', value: 'S', default: '120', description: 'per-file timeout in seconds (the service default)' },
      'max-text-chars': { type: 'string', value: 'N', default: '2000000', description: 'indexing.max_text_chars' },
      'max-file-mb': { type: 'string', value: 'N', default: '100', description: 'indexing.max_file_size_mb' },
    },
  },
  ({ values, positional }) => ({
    dir: positional ?? sharedPath('datasets', 'formats'),
    hostile: values.hostile,
    timeoutS: positiveInt('timeout', values.timeout),
    maxTextChars: positiveInt('max-text-chars', values['max-text-chars']),
    maxFileMb: positiveInt('max-file-mb', values['max-file-mb']),
  }),
);

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'lib', 'torture-child.js');
const PEAK_RSS_LIMIT_MB = 1024;

interface Row {
  file: string;
  bytes: number;
  outcome: string;
  format: string;
  chars: number | null;
  truncated: boolean;
  ms: number;
  peakRssMb: number | null;
  /** Share of the text's characters that are replacement or control characters: binary taken for text. */
  garbage: number;
  detail: string;
}

// eslint-disable-next-line no-control-regex
const GARBAGE = /[\uFFFD\u0000-\u0008\u000E-\u001F\u007F-\u009F]/g;

function garbageShare(text: string): number {
  if (text.length === 0) return 0;
  return (text.match(GARBAGE)?.length ?? 0) / text.length;
}

function runOne(file: string): Promise<Row> {
  return new Promise((resolve) => {
    const started = performance.now();
    const proc = spawn(process.execPath, [child, file, String(maxTextChars), String(maxFileMb * 1024 * 1024), String(timeoutS * 1000 * 0.6)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutS * 1000);
    proc.once('exit', async (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      const bytes = (await stat(file)).size;
      const base = { file, bytes, ms, format: '', chars: null, truncated: false, peakRssMb: null, garbage: 0, detail: '' };
      if (signal === 'SIGKILL') return resolve({ ...base, outcome: 'TIMEOUT', detail: `killed after ${timeoutS} s` });
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) return resolve({ ...base, outcome: 'CRASH', detail: err.trim().split('\n').slice(-1)[0] ?? `exit ${code}` });
      const r = JSON.parse(line) as Record<string, unknown>;
      const text = typeof r.head === 'string' ? r.head : '';
      resolve({
        ...base,
        outcome: r.outcome as string,
        format: (r.format as string | undefined) ?? '',
        chars: (r.chars as number | undefined) ?? null,
        truncated: r.truncated === true,
        peakRssMb: r.peakRssMb as number,
        garbage: r.format === 'text' || r.format === 'csv' ? garbageShare(text) : 0,
        detail: r.outcome === 'indexed' ? `${String(r.title ?? '').slice(0, 40)}${r.note ? ` (${String(r.note)})` : ''}` : String(r.reason ?? '').slice(0, 90),
      });
    });
  });
}

const folders = [dir];
let generated: string | null = null;
if (hostile) {
  generated = await mkdtemp(path.join(tmpdir(), 'filesift-torture-'));
  process.stdout.write(`writing the hostile set to ${generated} ...\n`);
  await writeTortureFiles(generated);
  folders.push(generated);
}
try {
  const rows: Row[] = [];
  for (const folder of folders) for (const file of await listFiles(folder, (file) => path.basename(file) !== 'SOURCE.md')) rows.push(await runOne(file));
  const name = (r: Row) => (generated && r.file.startsWith(generated) ? `hostile/${path.basename(r.file)}` : path.relative(dir, r.file));
  console.log(`\n| file | size | outcome | format | chars | cut | time (s) | peak RSS (MB) | detail |`);
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const size = r.bytes >= 1 << 20 ? `${(r.bytes / (1 << 20)).toFixed(1)} MB` : `${(r.bytes / 1024).toFixed(1)} KB`;
    console.log(
      `| ${name(r)} | ${size} | ${r.outcome} | ${r.format} | ${r.chars ?? ''} | ${r.truncated ? 'yes' : ''} | ${(r.ms / 1000).toFixed(2)} | ${r.peakRssMb?.toFixed(0) ?? ''} | ${r.detail.replace(/\|/g, '/')} |`,
    );
  }
  if (generated) {
    console.log('\nhostile set, what each must do:');
    for (const t of TORTURE_FILES) console.log(`  ${t.name}: ${t.expect}`);
  }
  const timeouts = rows.filter((r) => r.outcome === 'TIMEOUT' || r.outcome === 'CRASH');
  const peak = Math.max(...rows.map((r) => r.peakRssMb ?? 0));
  const binaryAsText = rows.filter((r) => r.garbage > 0.02);
  const slowest = [...rows].sort((a, b) => b.ms - a.ms)[0];
  console.log(`\n${rows.length} files; slowest ${slowest ? `${name(slowest)} ${(slowest.ms / 1000).toFixed(1)} s` : '-'}`);
  console.log(`timeouts or crashes: ${timeouts.length}${timeouts.length ? ` (${timeouts.map(name).join(', ')})` : ''}   ${timeouts.length === 0 ? 'OK' : 'FAIL'}`);
  console.log(`peak RSS of any file: ${peak.toFixed(0)} MB (limit ${PEAK_RSS_LIMIT_MB})   ${peak < PEAK_RSS_LIMIT_MB ? 'OK' : 'FAIL'}`);
  console.log(`binary indexed as text (>2% replacement/control characters): ${binaryAsText.length}${binaryAsText.length ? ` (${binaryAsText.map(name).join(', ')})` : ''}   ${binaryAsText.length === 0 ? 'OK' : 'FAIL'}`);
} finally {
  if (generated) await rm(generated, { recursive: true, force: true });
}
