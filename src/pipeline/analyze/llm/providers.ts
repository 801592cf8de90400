/**
 * The two remote summarizers, each speaking its real chat protocol with JSON output forced on:
 * - ollama: POST {baseUrl}/api/chat {model, messages, format: "json", stream: false} → {message: {content}}
 * - openai: POST {baseUrl}/chat/completions {model, messages, response_format: {type: "json_object"}} with
 *   `Authorization: Bearer <key>` → {choices: [{message: {content}}]}; any OpenAI-compatible server works.
 * Both return the validated reply or a reason, never throw.
 */
import { Type } from '#typebox';
import { Value } from '#typebox/value';
import type { ParsedDocument } from '../../types.js';
import { postJson, snippet } from './http.js';
import { buildMessages } from './prompt.js';
import type { ReplyOutcome } from './reply.js';
import { parseModelReply } from './reply.js';

export type RemoteProvider = 'ollama' | 'openai';

export const DEFAULT_BASE_URLS: Record<RemoteProvider, string> = {
  ollama: 'http://127.0.0.1:11434',
  openai: 'https://api.openai.com/v1',
};

export interface RemoteOptions {
  model: string;
  baseUrl?: string | null;
  apiKey?: string | null;
  timeoutMs: number;
  excerptChars: number;
  signal?: AbortSignal;
}

const OllamaChatResponse = Type.Object({ message: Type.Object({ content: Type.String() }) });
const OpenAIChatResponse = Type.Object({
  choices: Type.Array(Type.Object({ message: Type.Object({ content: Type.Union([Type.String(), Type.Null()]) }) }), {
    minItems: 1,
  }),
});

export async function askModel(provider: RemoteProvider, doc: ParsedDocument, options: RemoteOptions): Promise<ReplyOutcome> {
  if (options.model.trim() === '') return { ok: false, reason: 'no model configured' };
  const base = (options.baseUrl ?? DEFAULT_BASE_URLS[provider]).replace(/\/+$/, '');
  const messages = buildMessages(doc, options.excerptChars);
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const post = { headers, timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };

  if (provider === 'ollama') {
    const body = { model: options.model, messages, format: 'json', stream: false, options: { temperature: 0 } };
    const outcome = await postJson(`${base}/api/chat`, body, post);
    if (!outcome.ok) return outcome;
    if (!Value.Check(OllamaChatResponse, outcome.body)) {
      return { ok: false, reason: `unexpected reply (no message.content): ${snippet(JSON.stringify(outcome.body))}` };
    }
    return parseModelReply(outcome.body.message.content);
  }

  const body = { model: options.model, messages, response_format: { type: 'json_object' }, temperature: 0 };
  const outcome = await postJson(`${base}/chat/completions`, body, post);
  if (!outcome.ok) return outcome;
  if (!Value.Check(OpenAIChatResponse, outcome.body)) {
    return { ok: false, reason: `unexpected reply (no choices[0].message.content): ${snippet(JSON.stringify(outcome.body))}` };
  }
  const content = outcome.body.choices[0]?.message.content;
  if (content === null || content === undefined) return { ok: false, reason: 'model returned no content' };
  return parseModelReply(content);
}
