/**
 * The model's answer, checked before it is trusted: a JSON object {title, summary, keywords} (TypeBox schema),
 * cleaned to the same bounds as the local analyzer's output. Anything else is a reason to fall back.
 */
import { Type } from '#typebox';
import type { Static } from '#typebox';
import { Value } from '#typebox/value';
import { truncate } from '../local/summary.js';
import { MAX_TITLE_CHARS } from '../local/title.js';
import { snippet } from './http.js';

export const ModelReplySchema = Type.Object({
  title: Type.String({ minLength: 1 }),
  summary: Type.String(),
  // Models asked for an array sometimes answer "a, b, c"; that is the same information, so it is accepted.
  keywords: Type.Union([Type.Array(Type.String()), Type.String()]),
});
export type ModelReply = Static<typeof ModelReplySchema>;

export interface CleanReply {
  title: string;
  summary: string;
  keywords: string[];
}

export type ReplyOutcome = { ok: true; reply: CleanReply } | { ok: false; reason: string };

const MAX_SUMMARY_CHARS = 600;
const MAX_KEYWORDS = 10;

/** Parses and validates the content string the model produced. */
export function parseModelReply(content: string): ReplyOutcome {
  // JSON mode should give bare JSON, but some OpenAI-compatible servers still wrap it in a Markdown fence.
  const unfenced = content.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/i, '$1');
  let parsed: unknown;
  try {
    parsed = JSON.parse(unfenced);
  } catch {
    return { ok: false, reason: `model reply was not JSON: ${snippet(content)}` };
  }
  if (!Value.Check(ModelReplySchema, parsed)) {
    const first = [...Value.Errors(ModelReplySchema, parsed)][0];
    const where = first?.instancePath ? first.instancePath : 'reply';
    return { ok: false, reason: `model reply is not {title, summary, keywords}: ${where} ${first?.message ?? 'is invalid'}` };
  }
  const title = parsed.title.replace(/\s+/g, ' ').trim();
  const summary = parsed.summary.replace(/\s+/g, ' ').trim();
  const keywords = cleanKeywords(parsed.keywords);
  if (title === '') return { ok: false, reason: 'model reply has an empty title' };
  if (keywords.length === 0) return { ok: false, reason: 'model reply has no keywords' };
  return {
    ok: true,
    reply: { title: truncate(title, MAX_TITLE_CHARS), summary: truncate(summary, MAX_SUMMARY_CHARS), keywords },
  };
}

function cleanKeywords(raw: string[] | string): string[] {
  const list = typeof raw === 'string' ? raw.split(/[,;\n]/) : raw;
  const seen = new Set<string>();
  const keywords: string[] = [];
  for (const item of list) {
    const keyword = item.replace(/\s+/g, ' ').trim().replace(/^[#"'“”-]+|["'“”.]+$/g, '').trim();
    if (keyword === '' || keyword.length > 80 || seen.has(keyword.toLowerCase())) continue;
    seen.add(keyword.toLowerCase());
    keywords.push(keyword);
    if (keywords.length === MAX_KEYWORDS) break;
  }
  return keywords;
}
