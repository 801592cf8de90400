/**
 * Keywords ranked by how specific they are to the file: each candidate term (inflections merged under one
 * stem) scores its sublinear frequency in the file times the square of its surprisal in general English,
 * score = (1 + ln tf) · rarity². The square sharpens the contrast between everyday words ("cells", rank 2,624)
 * and the file's own vocabulary ("dendritic", rank 56,029) that plain surprisal leaves too flat. Heading and
 * title words count double. Deterministic: ties break on the key.
 */
import type { BackgroundFrequencies } from './background.js';
import { backgroundFrequencies, estimatedRank, zipfOffset } from './background.js';
import type { Sentence, Token } from './nlp.js';
import { CODE_WORDS, GENERIC_WORDS } from './stopwords.js';
import { memoizeBounded } from '../../../lib/bounded-memo.js';

export interface KeywordOptions {
  /** Source code: no part-of-speech filter (tags are meaningless there), programming words are stop words. */
  code?: boolean;
  min?: number;
  max?: number;
  /** Candidates scoring below this share of the best one are dropped once `min` keywords are reached. */
  relativeCutoff?: number;
}

const CONTENT_POS = new Set(['NOUN', 'PROPN', 'ADJ', 'X']);
/** Words this common (rank ≤ 150 in the background list) are never specific, whatever their tag. */
const COMMON_RANK = 150;

interface Candidate {
  key: string;
  weightedCount: number;
  forms: Map<string, number>;
  /** Surface spellings seen where capitalisation is evidence (not sentence-initial, not in a heading). */
  casings: Map<string, number>;
  /** Every surface spelling as written, for words only ever seen where capitals are ambiguous. */
  spellings: Map<string, number>;
  lemmas: Set<string>;
  score: number;
}

export function extractKeywords(
  tokens: Token[],
  sentences: Sentence[],
  options: KeywordOptions = {},
  background: BackgroundFrequencies = backgroundFrequencies(),
): string[] {
  const { code = false, min = 5, max = 10, relativeCutoff = 0.3 } = options;
  const candidates = new Map<string, Candidate>();
  const offset = zipfOffset(background);

  const shouting = sentences.map((sentence) => isShouting(tokens, sentence));
  for (const token of tokens) {
    if (!isCandidate(token, code, background)) continue;
    const sentence = sentences[token.sentence];
    const inHeading = sentence?.blockKind === 'heading';
    const caseIsEvidence = !(shouting[token.sentence] ?? false);
    // A table cell is not a sentence: its first word's capital is as meaningful as any other.
    const ambiguousCapital = token.sentenceStart && sentence?.blockKind !== 'table';
    let candidate = candidates.get(token.key);
    if (!candidate) {
      candidate = { key: token.key, weightedCount: 0, forms: new Map(), casings: new Map(), spellings: new Map(), lemmas: new Set(), score: 0 };
      candidates.set(token.key, candidate);
    }
    candidate.weightedCount += inHeading ? 2 : 1;
    candidate.forms.set(token.lower, (candidate.forms.get(token.lower) ?? 0) + 1);
    if (caseIsEvidence) candidate.spellings.set(token.value, (candidate.spellings.get(token.value) ?? 0) + 1);
    candidate.lemmas.add(token.lemma);
    if (caseIsEvidence && !inHeading && (!ambiguousCapital || token.value !== capitalise(token.lower))) {
      candidate.casings.set(token.value, (candidate.casings.get(token.value) ?? 0) + 1);
    }
  }

  for (const candidate of candidates.values()) {
    // Zipf: p(word) ≈ 1 / (rank · H). A term's probability is the sum over the spellings it was seen in and
    // its lemma, so "studies" is judged as common as "study".
    let probability = 0;
    for (const word of new Set([...candidate.forms.keys(), ...candidate.lemmas])) probability += 1 / estimatedRank(word, background);
    const rarity = -Math.log(probability) + offset;
    candidate.score = (1 + Math.log(candidate.weightedCount)) * rarity * rarity;
  }

  const ranked = [...candidates.values()].sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const best = ranked[0]?.score ?? 0;
  const chosen = ranked.filter((candidate, index) => index < min || candidate.score >= best * relativeCutoff).slice(0, max);
  // In code, capitals follow naming conventions (ClassName, CONSTANT), not meaning.
  return chosen.map((candidate) => (code ? (mostFrequent(candidate.forms) ?? candidate.key) : displayForm(candidate)));
}

function isCandidate(token: Token, code: boolean, background: BackgroundFrequencies): boolean {
  if (token.type !== 'word' || token.stopWord) return false;
  const word = token.lower;
  if (!hasKeywordSpelling(word)) return false;
  if (word.length === 2 && token.value !== token.value.toUpperCase()) return false; // "AI" and "UV" yes, "mo" no
  if (GENERIC_WORDS.has(token.lemma)) return false;
  if (code) return !CODE_WORDS.has(word) && !CODE_WORDS.has(token.lemma);
  if (!CONTENT_POS.has(token.pos)) return false;
  const rank = background.rank(word);
  return rank === undefined || rank > COMMON_RANK;
}

const SPELLING_CACHE_LIMIT = 200_000;
/**
 * Whether a lower-case word may be a keyword by its spelling alone. A dozen regular expressions a token were the
 * analyzer's largest function of its own on the Debian documents; words repeat, so the answer is remembered.
 */
const hasKeywordSpelling = memoizeBounded((word: string): boolean => {
  if (word.length < 2 || word.length > 40 || !/^\p{L}/u.test(word) || !/^[\p{L}\p{N}][\p{L}\p{N}'’.-]*$/u.test(word)) return false;
  if (/\d/.test(word) && (word.length < 3 || /^[0-9a-f]{8,}$/.test(word))) return false;
  // At least two letters ("IL-6", "H1N1"), or one letter and two digits ("p53"): not "C-0", "10th", "2b".
  if (!/\p{L}.*\p{L}/u.test(word) && !/^\p{L}\d{2,}$/u.test(word)) return false;
  if (/^\d+(st|nd|rd|th|s)$/.test(word)) return false;
  if (word.includes('-') && word.split('-').every((part) => part.length <= 1)) return false; // a-z, x-y
  if (/['’]/.test(word) || word.endsWith('.')) return false; // contractions and abbreviations ("e.g.")
  return !GENERIC_WORDS.has(word);
}, SPELLING_CACHE_LIMIT);

/**
 * The most frequent spelling, in lower case unless the text capitalises it where capitals mean something
 * ("DNA", "mRNA", "Drosophila" mid-sentence); a word seen only at sentence starts or in title-case headings is
 * shown in lower case.
 */
function displayForm(candidate: Candidate): string {
  const form = mostFrequent(candidate.forms) ?? candidate.key;
  const casings = [...candidate.casings.entries()].filter(([value]) => value.toLowerCase() === form);
  if (casings.length === 0) {
    // Only seen at sentence starts or in headings: keep capitals only inside the word ("DNA", "mRNA").
    const spelled = mostFrequent(new Map([...candidate.spellings.entries()].filter(([value]) => value.toLowerCase() === form)));
    return spelled !== undefined && /^.+\p{Lu}/u.test(spelled) ? spelled : form;
  }
  if (casings.some(([value]) => value === form)) return form;
  return mostFrequent(new Map(casings)) ?? form;
}

function mostFrequent(counts: Map<string, number>): string | undefined {
  let best: string | undefined;
  let bestCount = -1;
  for (const [value, count] of counts) {
    if (count > bestCount || (count === bestCount && best !== undefined && value < best)) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}

/** A sentence in capitals ("REFERENCE STANDARD REQUIREMENT") says nothing about how its words are spelled. */
function isShouting(tokens: Token[], sentence: Sentence): boolean {
  let words = 0;
  let upper = 0;
  for (let i = sentence.firstToken; i < sentence.endToken; i += 1) {
    const value = tokens[i]?.type === 'word' ? (tokens[i]?.value ?? '') : '';
    if (!/\p{L}.*\p{L}/u.test(value)) continue;
    words += 1;
    if (value === value.toUpperCase()) upper += 1;
  }
  return upper >= 3 && upper >= words * 0.6;
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
