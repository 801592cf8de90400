/**
 * The chat messages sent to a model: a system message fixing the JSON shape and the rules, and a user message
 * with the file name, format, any metadata title and a bounded excerpt of the text (the start of the file,
 * where titles and abstracts live, cut at a word boundary).
 */
import type { ParsedDocument } from '../../types.js';

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

export const SYSTEM_PROMPT = [
  'You describe files for a local search index.',
  'Reply with a single JSON object and nothing else, of the form',
  '{"title": string, "summary": string, "keywords": [string, ...]}.',
  "title: the document's own title if it has one, otherwise a short descriptive title (at most 12 words).",
  'summary: 1 to 3 sentences, at most 400 characters, saying what the document is about.',
  'keywords: 5 to 10 specific terms or short phrases someone would search for to find this file, most specific first; no generic words.',
  'Write in the language of the document.',
].join('\n');

export function buildMessages(doc: ParsedDocument, excerptChars: number): ChatMessage[] {
  const text = doc.text.trim();
  const excerpt = excerptOf(text, excerptChars);
  const lines = [`File name: ${doc.filename}`, `Format: ${doc.format}`];
  if (typeof doc.metadata.title === 'string' && doc.metadata.title.trim() !== '') {
    lines.push(`Title in the file's metadata: ${doc.metadata.title.trim()}`);
  }
  const shown = excerpt.length < text.length ? `the first ${excerpt.length} of ${text.length} characters` : 'the whole text';
  lines.push('', `Text (${shown}):`, '"""', excerpt, '"""');
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: lines.join('\n') },
  ];
}

function excerptOf(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars);
  const space = cut.search(/\s\S*$/);
  return space > maxChars / 2 ? cut.slice(0, space) : cut;
}
