/**
 * Analyze stage: title, summary and keywords of a parsed document.
 *
 * `local` (the default) is the offline extractive analyzer. `ollama` and `openai` ask a model for JSON
 * {title, summary, keywords}; when that fails for any reason (timeout, refused connection, HTTP error, a reply
 * that is not the JSON asked for) the local analyzer answers instead and `fallbackReason` says what happened,
 * e.g. "ollama: timed out after 30 s". This function does not throw for remote failures; it runs inside a
 * pipeline worker thread and keeps no state beyond per-thread caches (wink model, background vocabulary).
 * The remote providers' code (typebox for their replies: ~18 MB of a thread's heap) loads only when one is asked.
 */
import { analyzeLocally } from '../analyze/local/index.js';
import type { RemoteProvider } from '../analyze/llm/providers.js';
import type { Analysis, ParsedDocument } from '../types.js';

export type SummarizerProvider = 'local' | RemoteProvider;

export interface AnalyzeOptions {
  provider: SummarizerProvider;
  /** Model name for ollama/openai (e.g. 'llama3.2', 'gpt-4o-mini'); ignored by local. */
  model: string;
  /** Provider endpoint; default http://127.0.0.1:11434 (ollama) or https://api.openai.com/v1 (openai). */
  baseUrl?: string | null;
  /**
   * Bearer token sent to the provider, when set. The service reads it from the environment:
   * FILESIFT_OPENAI_API_KEY for openai (suggested fallback: OPENAI_API_KEY), FILESIFT_OLLAMA_API_KEY for an
   * ollama behind an authenticating proxy. Never stored in settings.
   */
  apiKey?: string | null;
  /** Deadline of one remote call, body included (settings: summarizer.timeout_seconds × 1000). */
  timeoutMs: number;
  /** The local analyzer reads at most this many characters of the text (e.g. 100,000). */
  maxInputChars: number;
  /** Characters of text sent to a remote model (default 6,000). */
  excerptChars?: number;
  /** Cancels a remote call in flight (the local fallback still answers). */
  signal?: AbortSignal;
}

export const DEFAULT_EXCERPT_CHARS = 6000;

export async function analyze(doc: ParsedDocument, options: AnalyzeOptions): Promise<Analysis> {
  const local = (): Analysis => analyzeLocally(doc, { maxInputChars: options.maxInputChars });
  if (options.provider === 'local') return local();
  const provider = options.provider;
  if (doc.text.trim() === '') return { ...local(), fallbackReason: `${provider}: not asked, the file has no text` };

  let reason: string;
  try {
    const { askModel } = await import('../analyze/llm/providers.js');
    const outcome = await askModel(provider, doc, {
      model: options.model,
      baseUrl: options.baseUrl ?? null,
      apiKey: options.apiKey ?? null,
      timeoutMs: options.timeoutMs,
      excerptChars: options.excerptChars ?? DEFAULT_EXCERPT_CHARS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (outcome.ok) return { ...outcome.reply, provider };
    reason = outcome.reason;
  } catch (error) {
    // askModel returns its failures; reaching here is a bug, but a file must still get an analysis.
    reason = `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
  }
  return { ...local(), fallbackReason: `${provider}: ${reason}` };
}
