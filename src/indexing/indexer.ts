import path from 'node:path';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../logger.js';
import type { AnalyzeOptions } from '../pipeline/stages/analyze.js';
import { statFile } from '../pipeline/stages/stat.js';
import type { PipelinePool, RunOptions } from '../pipeline/pool.js';
import type { FileFacts, ParsedDocument } from '../pipeline/types.js';
import type { Settings } from '../settings/schema.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { KnownFile } from '../store/repositories/files.types.js';
import type { StoreApi } from '../store/store.js';
import { KEYWORD_SLICED_FROM_CHARS } from '../store/keyword/slices.js';
import { indexedFileWrite } from './indexed-write.js';
import { CONTENT_KEY_CHARS, KnownContent } from './known-content.js';
import type { FileOutcome, IndexRun } from './run.js';

/** Share of indexing.file_timeout_seconds the parse stage may spend extracting before it keeps what it has. */
const PARSE_TIME_SHARE = 0.5;
/**
 * Characters of a file's text the local analyzer reads (summaries and keywords come from the start of a long text).
 * Its cost grows with the text (winkNLP tags every token): on 568 HTML and text files of the Debian documentation
 * corpus, 30,000 characters instead of 100,000 cut it from 11.2 to 7.4 CPU ms per file, with the same title for
 * every file, the same summary for 555 of them and 98 % of the keywords. Shorter texts (SciFact's abstracts among
 * them) are analysed whole, as before.
 */
export const ANALYZE_MAX_INPUT_CHARS = 30_000;

/** What the indexing settings allow a file's parse: its bytes read for text, and its text's characters kept. */
export function parseLimits(indexing: Settings['indexing']): { maxFileBytes: number; maxTextChars: number } {
  return { maxFileBytes: Math.round(indexing.max_file_size_mb * 1024 * 1024), maxTextChars: indexing.max_text_chars };
}

export interface IndexerDeps {
  store: StoreApi;
  pool: PipelinePool;
  settings: SettingsService;
  bus: EventBus;
  logger: Logger;
  /** Identity of the active embedding model (e.g. 'static:glove-sg-100d-sif'), or null when none is available. */
  embeddingModel: () => string | null;
  /** The watch job a path belongs to (deepest watched root), or null. */
  jobFor: (absolutePath: string) => number | null;
  /** API keys of remote summarizers, from the environment. */
  apiKeys: { openai: string | null; ollama: string | null };
}

export interface IndexFileOptions {
  /** The run the file is part of (events and counts). */
  run: IndexRun;
  /** Redo everything, even when the file looks unchanged. */
  force: boolean;
  /** What the caller already knows of the file (saves a query); undefined: look it up. */
  known?: KnownFile | null;
  /** Stops this file's work (default: the run's signal); a queue item has its own, so a deleted job stops it. */
  signal?: AbortSignal;
}

/** mtime in whole milliseconds: what statFile's ISO timestamps carry, and what we store. */
export function wholeMs(mtimeMs: number): number {
  return Math.trunc(mtimeMs);
}

/**
 * True when a file needs no work: same size and mtime as when it was processed, and processed with the
 * current model (a failed or content-excluded file is not read again until it changes, or a forced run).
 */
export function looksUnchanged(known: KnownFile, size: number, mtimeMs: number, model: string | null): boolean {
  if (!sameFacts(known, size, mtimeMs)) return false;
  return known.status !== 'indexed' || known.embeddingModel === (model ?? '');
}

/** Same size and mtime as when the file was processed: its content is taken to be unchanged. */
export function sameFacts(known: KnownFile, size: number, mtimeMs: number): boolean {
  return known.size === size && known.mtimeMs === wholeMs(mtimeMs);
}

/** Indexed with another embedding model than the active one: only its chunks need redoing. */
function needsReembedOnly(known: KnownFile | null, model: string | null): known is KnownFile {
  return model !== null && known !== null && known.status === 'indexed' && known.embeddingModel !== model;
}

/** What #index learnt of the file before something unexpected stopped it. */
interface Seen {
  facts: FileFacts;
  mtimeMs: number;
}

function factsOfMissing(filePath: string): FileFacts {
  const epoch = new Date(0).toISOString();
  const ext = path.extname(filePath).slice(1).toLowerCase();
  return { path: filePath, filename: path.basename(filePath), extension: ext, size: 0, created: epoch, modified: epoch, accessed: epoch };
}

/**
 * Turns one file into an index entry: stat → (unchanged? skip) → parse in the pool → (same content? touch;
 * same content elsewhere? copy) → analyze + embed in the pool → one store transaction. Work on one path is
 * serialised, so a scan and a queue item never process the same file at once.
 */
export class Indexer {
  readonly #locks = new Map<string, Promise<unknown>>();
  /** Content being analyzed and embedded right now, by hash: an identical file waits for it, then copies it. */
  readonly #inFlightContent = new Map<string, Promise<unknown>>();
  /** Contents the index may hold: a certainly new one skips the duplicate lookup. */
  readonly #knownContent: KnownContent;

  constructor(private readonly deps: IndexerDeps) {
    this.#knownContent = new KnownContent((after) => deps.store.files.contentKeys(CONTENT_KEY_CHARS, after));
  }

  /** Runs fn after any work already pending on this path. */
  #withPathLock<T>(filePath: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(filePath) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const settled = next.catch(() => undefined);
    this.#locks.set(filePath, settled);
    void settled.then(() => {
      if (this.#locks.get(filePath) === settled) this.#locks.delete(filePath);
    });
    return next;
  }

  indexFile(filePath: string, options: IndexFileOptions): Promise<FileOutcome> {
    return this.#withPathLock(filePath, () => this.#guarded(filePath, options));
  }

  /**
   * Re-embeds an indexed file with the active model from its stored text and title (no parsing, no analysis):
   * what a model change does. Identical content already embedded with the model is copied instead. A failure
   * leaves the file's record and earlier chunks as they were (counted failed in the run; retried next time).
   */
  reembedFile(file: { id: number; path: string }, run: IndexRun): Promise<FileOutcome> {
    return this.#withPathLock(file.path, async () => {
      try {
        return await this.#reembed(file.id, run);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        this.deps.logger.error({ err, path: file.path }, 'unexpected error while re-embedding a file');
        run.record('failed');
        run.fileFailed({ path: file.path, file_id: file.id, code: 'internal', error: reason });
        return { status: 'failed', code: 'internal', reason };
      }
    });
  }

  /** Removes a file from the index (it was deleted, or is now excluded). */
  removeFile(filePath: string, reason: 'deleted' | 'excluded' | 'job_removed' | 'missing', run: IndexRun | null): Promise<boolean> {
    return this.#withPathLock(filePath, async () => {
      const removed = await this.deps.store.files.removePaths([filePath]);
      if (removed.length === 0) return false;
      if (run) {
        run.record('removed');
        run.fileEvent('file_removed', { path: filePath, reason });
      } else {
        this.deps.bus.publish('file_removed', { run_id: null, path: filePath, reason });
      }
      return true;
    });
  }

  /**
   * A rename: when the destination still has the size and mtime the source was indexed with, only the path
   * changes (no parsing, no embedding). Otherwise the destination is indexed (reusing identical content) and
   * the source removed.
   */
  moveFile(from: string, to: string, run: IndexRun, signal?: AbortSignal): Promise<FileOutcome> {
    return this.#withPathLock(from, () =>
      this.#withPathLock(to, async () => {
        const [known] = await this.deps.store.files.known([from]);
        const stat = await statFile(to);
        if (known && stat.ok && known.status === 'indexed' && looksUnchanged(known, stat.facts.size, Date.parse(stat.facts.modified), this.deps.embeddingModel())) {
          const moved = await this.deps.store.files.move(from, to, stat.facts, Date.parse(stat.facts.modified), this.deps.jobFor(to));
          if (moved) {
            await this.#finishKeywords(known.id, null); // a new name re-indexes its keywords
            run.record('indexed');
            run.fileEvent('file_indexed', { path: to, file_id: known.id, chunks: null, reused: true });
            return { status: 'indexed' };
          }
        }
        const outcome = await this.#guarded(to, { run, force: false, ...(signal ? { signal } : {}) });
        await this.deps.store.files.removePaths([from]);
        return outcome;
      }),
    );
  }

  /** Never lets an unexpected error escape: the file is recorded as failed and the run goes on. */
  async #guarded(filePath: string, options: IndexFileOptions): Promise<FileOutcome> {
    // The size and mtime the file had, once stat'ed: recorded with an unexpected failure too, so the failed file
    // is not read again at every start while it stays as it was (looksUnchanged).
    const seen: Seen = { facts: factsOfMissing(filePath), mtimeMs: 0 };
    try {
      return await this.#index(filePath, options, seen);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.deps.logger.error({ err, path: filePath }, 'unexpected error while indexing a file');
      return this.#fail(filePath, options.run, seen.facts, seen.mtimeMs, 'internal', reason, options.signal).catch((): FileOutcome => ({ status: 'failed', code: 'internal', reason }));
    }
  }

  async #index(filePath: string, { run, force, known: knownArg, signal = run.signal }: IndexFileOptions, seen: Seen): Promise<FileOutcome> {
    const { store } = this.deps;
    const settings = this.deps.settings.get();
    const model = this.deps.embeddingModel();
    const jobId = this.deps.jobFor(filePath);

    const stat = await statFile(filePath);
    if (!stat.ok) {
      if (stat.code === 'not_found' || stat.code === 'not_a_file') {
        const removed = await store.files.removePaths([filePath]);
        if (removed.length > 0) {
          run.record('removed');
          run.fileEvent('file_removed', { path: filePath, reason: 'missing' });
          return { status: 'removed' };
        }
        return this.#fail(filePath, run, null, 0, stat.code, stat.reason, signal);
      }
      return this.#fail(filePath, run, factsOfMissing(filePath), 0, stat.code, stat.reason, signal);
    }
    const facts = stat.facts;
    const mtimeMs = Date.parse(facts.modified);
    seen.facts = facts;
    seen.mtimeMs = mtimeMs;
    const known = knownArg !== undefined ? knownArg : ((await store.files.known([filePath]))[0] ?? null);
    if (!force && known && looksUnchanged(known, facts.size, mtimeMs, model)) {
      return this.#skip(run, filePath, 'unchanged');
    }
    // Unchanged content embedded by another model (the model changed): re-embed the stored text only.
    if (!force && needsReembedOnly(known, model) && sameFacts(known, facts.size, mtimeMs)) {
      return this.#reembed(known.id, run);
    }

    const timing: RunOptions = { timeoutMs: settings.indexing.file_timeout_seconds * 1000, signal };
    run.fileEvent('file_parsing', { path: filePath });
    const prepared = await this.deps.pool.prepare(
      {
        path: filePath,
        parse: {
          ...parseLimits(settings.indexing),
          // Half the file timeout: a document too slow to read whole ends with what was read, not with nothing.
          timeBudgetMs: settings.indexing.file_timeout_seconds * 1000 * PARSE_TIME_SHARE,
        },
      },
      timing,
    );
    if (!prepared.ok) return this.#fail(filePath, run, facts, mtimeMs, prepared.code, prepared.reason, signal);
    if (!prepared.value.ok) {
      const failure = prepared.value;
      if (failure.code === 'contains_secret') return this.#exclude(filePath, run, failure.facts ?? facts, mtimeMs, failure.reason, signal);
      return this.#fail(filePath, run, failure.facts ?? facts, mtimeMs, failure.code, failure.reason, signal);
    }
    const doc = prepared.value.doc;
    run.fileEvent('file_parsed', { path: filePath, format: doc.format, characters: doc.text.length, truncated: doc.textTruncated });

    if (!force && known?.status === 'indexed' && known.contentHash === doc.contentHash) {
      if (known.embeddingModel === (model ?? '')) {
        await store.files.touch(filePath, doc, mtimeMs, jobId);
        return this.#skip(run, filePath, 'content_unchanged');
      }
      if (needsReembedOnly(known, model)) {
        await store.files.touch(filePath, doc, mtimeMs, jobId);
        return this.#reembed(known.id, run);
      }
    }
    // Identical content: wait for a copy being processed right now, then reuse the stored one. The claim is
    // taken synchronously (no await in between), so two identical files never both get embedded.
    const claim = this.#claimContent(doc.contentHash);
    try {
      if (!force && model) {
        await claim.previous;
        const sourceId = (await this.#knownContent.mayHold(doc.contentHash)) ? await store.files.findByHash(doc.contentHash, model, filePath) : null;
        if (sourceId !== null) {
          const id = await store.files.saveCopy(sourceId, doc, mtimeMs, jobId);
          await this.#finishKeywords(id, doc.text.length);
          run.record('indexed', doc.text === '');
          run.fileEvent('file_indexed', { path: filePath, file_id: id, chunks: null, reused: true });
          return { status: 'indexed' };
        }
      }
      return await this.#enrichAndSave(filePath, run, doc, mtimeMs, jobId, settings, model, timing);
    } finally {
      claim.release();
    }
  }

  /** Queues this file behind any other file with the same content; release() lets the next one go. */
  #claimContent(hash: string): { previous: Promise<unknown>; release: () => void } {
    const previous = this.#inFlightContent.get(hash) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const chained = previous.then(() => mine);
    this.#inFlightContent.set(hash, chained);
    return {
      previous,
      release: () => {
        release();
        if (this.#inFlightContent.get(hash) === chained) this.#inFlightContent.delete(hash);
      },
    };
  }

  async #enrichAndSave(
    filePath: string,
    run: IndexRun,
    doc: ParsedDocument,
    mtimeMs: number,
    jobId: number | null,
    settings: Settings,
    model: string | null,
    timing: RunOptions,
  ): Promise<FileOutcome> {
    const enriched = await this.deps.pool.enrich({ doc, analyze: this.#analyzeOptions(settings), embed: model !== null }, timing);
    if (!enriched.ok) return this.#fail(filePath, run, doc, mtimeMs, enriched.code, enriched.reason, timing.signal);
    const { analysis, chunks, embedder, timings } = enriched.value;
    run.addStageTime('analyze', timings.analyzeMs);
    run.addStageTime('embed', timings.embedMs);
    run.fileEvent('file_summarized', { path: filePath, title: analysis.title, provider: analysis.provider, fallback_reason: analysis.fallbackReason ?? null });
    const embeddingModel = embedder ? `${embedder.kind}:${embedder.model}` : '';
    if (embedder) run.fileEvent('file_embedded', { path: filePath, chunks: chunks.length, model: embeddingModel });

    const storeStart = performance.now();
    const id = await this.deps.store.files.saveIndexed(
      indexedFileWrite(doc, {
        mtimeMs,
        jobId,
        analysis,
        embeddingModel,
        chunks: chunks.map((c) => ({ index: c.index, start: c.start, end: c.end, text: c.text, embedding: c.embedding })),
      }),
    );
    // Before the content's claim is released: an identical file waiting on it must find it.
    this.#knownContent.add(doc.contentHash);
    await this.#finishKeywords(id, doc.text.length);
    run.addStageTime('store', performance.now() - storeStart);
    run.record('indexed', doc.text === '');
    run.fileEvent('file_indexed', { path: filePath, file_id: id, chunks: chunks.length, reused: false });
    return { status: 'indexed' };
  }

  /** Re-embeds file `id` from its stored text with the active model (the caller holds the path lock). */
  async #reembed(id: number, run: IndexRun): Promise<FileOutcome> {
    const { store } = this.deps;
    const model = this.deps.embeddingModel();
    const source = await store.embeddings.source(id);
    if (!source || source.status !== 'indexed' || source.contentHash === null) {
      run.record('skipped'); // removed or failed meanwhile: nothing of it to re-embed
      return { status: 'skipped' };
    }
    if (model === null || source.embeddingModel === model) return this.#skip(run, source.path, 'unchanged');
    const hash = source.contentHash;
    const claim = this.#claimContent(hash);
    try {
      await claim.previous;
      const twin = await store.files.findByHash(hash, model, source.path);
      if (twin !== null && (await store.embeddings.copy(twin, id, hash))) {
        run.record('indexed');
        run.fileEvent('file_indexed', { path: source.path, file_id: id, chunks: null, reused: true });
        return { status: 'indexed' };
      }
      const settings = this.deps.settings.get();
      const embedded = await this.deps.pool.embed(
        { path: source.path, text: source.content, title: source.title },
        { timeoutMs: settings.indexing.file_timeout_seconds * 1000, signal: run.signal },
      );
      if (!embedded.ok) {
        run.record('failed');
        run.fileFailed({ path: source.path, file_id: id, code: embedded.code, error: embedded.reason });
        return { status: 'failed', code: embedded.code, reason: embedded.reason };
      }
      const { chunks, embedder, embedMs } = embedded.value;
      run.addStageTime('embed', embedMs);
      const embeddingModel = `${embedder.kind}:${embedder.model}`;
      run.fileEvent('file_embedded', { path: source.path, chunks: chunks.length, model: embeddingModel });
      const storeStart = performance.now();
        const written = await store.embeddings.replace({
        fileId: id,
        contentHash: hash,
        embeddingModel,
        chunks: chunks.map((c) => ({ index: c.index, start: c.start, end: c.end, text: c.text, embedding: c.embedding })),
      });
      run.addStageTime('store', performance.now() - storeStart);
      if (!written) {
        run.record('skipped'); // its content changed meanwhile: the indexing of the new content embeds it
        return { status: 'skipped' };
      }
      run.record('indexed');
      run.fileEvent('file_indexed', { path: source.path, file_id: id, chunks: chunks.length, reused: false });
      return { status: 'indexed' };
    } finally {
      claim.release();
    }
  }

  /**
   * Finishes a long text's keyword index (store/keyword/slices.ts), one short store call per slice, so that searches
   * run between them instead of waiting behind one long write. `textChars` null: the length is not known here.
   */
  async #finishKeywords(id: number, textChars: number | null): Promise<void> {
    if (textChars !== null && textChars <= KEYWORD_SLICED_FROM_CHARS) return;
    try {
      while (!(await this.deps.store.search.continueKeywords(id))) {
        // the next slice
      }
    } catch (err) {
      // The file itself is written: it must not be failed for this. What is left stays pending for the upkeep.
      this.deps.logger.warn({ err, fileId: id }, 'keyword index of a long text left unfinished; the index upkeep finishes it');
    }
  }

  #analyzeOptions(settings: Settings): Omit<AnalyzeOptions, 'signal'> {
    const { provider, model, base_url, timeout_seconds } = settings.summarizer;
    return {
      provider,
      model,
      baseUrl: base_url,
      apiKey: provider === 'openai' ? this.deps.apiKeys.openai : provider === 'ollama' ? this.deps.apiKeys.ollama : null,
      timeoutMs: timeout_seconds * 1000,
      maxInputChars: ANALYZE_MAX_INPUT_CHARS,
    };
  }

  #skip(run: IndexRun, filePath: string, reason: 'unchanged' | 'content_unchanged'): FileOutcome {
    run.record('skipped');
    run.fileEvent('file_skipped', { path: filePath, reason });
    return { status: 'skipped' };
  }

  /**
   * The content check keeps the file out of the index (it holds a key or a token): any earlier record of it
   * leaves, and the reason is kept for /api/filters/test (and so that an unchanged file is not read again).
   */
  async #exclude(filePath: string, run: IndexRun, facts: FileFacts, mtimeMs: number, reason: string, signal: AbortSignal): Promise<FileOutcome> {
    if (signal.aborted) return { status: 'skipped' };
    const wasIndexed = await this.deps.store.files.saveExcluded({ facts, mtimeMs, jobId: this.deps.jobFor(filePath), code: 'contains_secret', reason });
    if (wasIndexed) run.fileEvent('file_removed', { path: filePath, reason: 'excluded' });
    run.record('skipped');
    run.fileEvent('file_skipped', { path: filePath, reason: 'contains_secret', detail: reason });
    this.deps.logger.warn({ path: filePath }, `kept out of the index: ${reason}`);
    return { status: 'skipped' };
  }

  /** Records the failure on the file (so it is visible, and findable by name) and tells event clients. */
  async #fail(filePath: string, run: IndexRun, facts: FileFacts | null, mtimeMs: number, code: string, reason: string, signal = run.signal): Promise<FileOutcome> {
    let fileId: number | null = null;
    // Work stopped on purpose (a run cancelled, a job deleted) leaves no failure behind.
    if (facts && !signal.aborted) {
      fileId = await this.deps.store.files.saveFailed({ facts, mtimeMs, jobId: this.deps.jobFor(filePath), code, reason });
    }
    run.record('failed');
    run.fileFailed({ path: filePath, file_id: fileId, code, error: reason });
    return { status: 'failed', code, reason };
  }
}
