/**
 * Extractive summary: the 1–3 most central sentences, in document order, within a character budget.
 *
 * Centrality is LexRank (continuous TextRank): sentences are bags of stems weighted by count × general-English
 * surprisal (so shared jargon links sentences more than shared everyday words), edges are cosine similarities,
 * and a sentence's score is its PageRank in that graph. A lead-in ("Thanks for reading our newsletter.") shares
 * little with the rest and so ranks low, wherever it stands. Picks skip near-duplicates of earlier picks.
 */
import type { BackgroundFrequencies } from './background.js';
import { backgroundFrequencies, rarity } from './background.js';
import { memoizeBounded } from '../../../lib/bounded-memo.js';
import type { Sentence, Token } from './nlp.js';

export interface SummaryOptions {
  maxSentences?: number;
  maxChars?: number;
  /** Upper bound on the sentences ranked (the graph is quadratic); later ones are ignored. */
  maxCandidates?: number;
}

const DAMPING = 0.85;
const MIN_WORDS = 4;
const REDUNDANT = 0.6;

type Vector = Map<string, number>;

export function summarize(
  candidates: Sentence[],
  tokens: Token[],
  options: SummaryOptions = {},
  background: BackgroundFrequencies = backgroundFrequencies(),
): string {
  const { maxSentences = 3, maxChars = 400, maxCandidates = 300 } = options;
  const wordy = candidates.filter((sentence) => countWords(sentence, tokens) >= MIN_WORDS);
  const pool = (wordy.length > 0 ? wordy : candidates).slice(0, maxCandidates);
  if (pool.length === 0) return '';

  const whole = pool.map((sentence) => sentence.text).join(' ');
  if (pool.length <= maxSentences && whole.length <= maxChars) return whole;

  const matrix = cosineMatrix(pool.map((sentence) => sentenceVector(sentence, tokens, background)));
  const n = pool.length;
  const similarity = (a: number, b: number): number => matrix[a * n + b] ?? 0;
  const scores = lexRank(n, similarity);

  const order = pool.map((_, index) => index).sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b);
  const picked: number[] = [];
  let length = 0;
  for (const index of order) {
    if (picked.length >= maxSentences) break;
    const text = pool[index]?.text ?? '';
    if (picked.length === 0) {
      picked.push(index);
      length = text.length;
      continue;
    }
    if (length + 1 + text.length > maxChars) continue;
    if (picked.some((other) => similarity(index, other) > REDUNDANT)) continue;
    picked.push(index);
    length += 1 + text.length;
  }
  picked.sort((a, b) => a - b);
  return truncate(picked.map((index) => pool[index]?.text ?? '').join(' '), maxChars);
}

function countWords(sentence: Sentence, tokens: Token[]): number {
  let words = 0;
  for (let i = sentence.firstToken; i < sentence.endToken; i += 1) if (tokens[i]?.type === 'word') words += 1;
  return words;
}

function sentenceVector(sentence: Sentence, tokens: Token[], background: BackgroundFrequencies): Vector {
  const vector: Vector = new Map();
  for (let i = sentence.firstToken; i < sentence.endToken; i += 1) {
    const token = tokens[i];
    if (!token || token.type !== 'word' || token.stopWord) continue;
    vector.set(token.key, (vector.get(token.key) ?? 0) + rarityCached(token.lower, background));
  }
  return vector;
}

const RARITY_CACHE_LIMIT = 200_000;
/** Surprisal per word, remembered for the thread (words repeat across files), one memo per background list. */
const rarityMemos = new WeakMap<BackgroundFrequencies, (word: string) => number>();

function rarityCached(word: string, background: BackgroundFrequencies): number {
  let memo = rarityMemos.get(background);
  if (!memo) {
    memo = memoizeBounded((w) => rarity(w, background), RARITY_CACHE_LIMIT);
    rarityMemos.set(background, memo);
  }
  return memo(word);
}

/**
 * All pairwise cosines at once through an inverted index: only pairs of sentences that share a term are ever
 * touched, which on long documents is far cheaper than n² vector comparisons.
 */
function cosineMatrix(vectors: Vector[]): Float64Array {
  const n = vectors.length;
  const matrix = new Float64Array(n * n);
  const postings = new Map<string, Array<[number, number]>>();
  const norms = new Float64Array(n);
  vectors.forEach((vector, sentence) => {
    let sum = 0;
    for (const [key, weight] of vector) {
      sum += weight * weight;
      let list = postings.get(key);
      if (!list) postings.set(key, (list = []));
      list.push([sentence, weight]);
    }
    norms[sentence] = Math.sqrt(sum);
  });
  for (const list of postings.values()) {
    for (let x = 0; x < list.length; x += 1) {
      const [a, weightA] = list[x] ?? [0, 0];
      for (let y = x + 1; y < list.length; y += 1) {
        const [b, weightB] = list[y] ?? [0, 0];
        matrix[a * n + b] = (matrix[a * n + b] ?? 0) + weightA * weightB;
      }
    }
  }
  for (let a = 0; a < n; a += 1) {
    for (let b = a + 1; b < n; b += 1) {
      const denominator = (norms[a] ?? 0) * (norms[b] ?? 0);
      const value = denominator > 0 ? (matrix[a * n + b] ?? 0) / denominator : 0;
      matrix[a * n + b] = value;
      matrix[b * n + a] = value;
    }
  }
  return matrix;
}

/**
 * PageRank over the similarity graph (self-loops excluded), by power iteration. The graph is kept as each
 * sentence's list of neighbours (compressed rows of typed arrays): most pairs of sentences share no word, and a
 * dense n × n walk per iteration (90,000 weights at 300 sentences, up to 100 iterations) made this the analyzer's
 * biggest function. The additions are the dense walk's, in the same order, so the scores are the same doubles.
 */
export function lexRank(n: number, similarity: (a: number, b: number) => number): number[] {
  const rowStart = new Int32Array(n + 1);
  const neighbours: number[] = [];
  const weights: number[] = [];
  const outSums = new Float64Array(n);
  for (let j = 0; j < n; j += 1) {
    let sum = 0;
    for (let i = 0; i < n; i += 1) {
      const weight = i === j ? 0 : similarity(Math.min(i, j), Math.max(i, j));
      if (weight > 0) {
        neighbours.push(i);
        weights.push(weight);
        sum += weight;
      }
    }
    outSums[j] = sum;
    rowStart[j + 1] = neighbours.length;
  }
  const neighbour = Int32Array.from(neighbours);
  const weight = Float64Array.from(weights);
  let scores = new Float64Array(n).fill(1 / n);
  let next = new Float64Array(n);
  for (let iteration = 0; iteration < 100; iteration += 1) {
    next.fill((1 - DAMPING) / n);
    let dangling = 0;
    for (let j = 0; j < n; j += 1) {
      const out = outSums[j]!;
      const score = scores[j]!;
      if (out === 0) {
        dangling += score;
        continue;
      }
      const share = (DAMPING * score) / out;
      for (let k = rowStart[j]!, end = rowStart[j + 1]!; k < end; k += 1) {
        const i = neighbour[k]!;
        next[i] = next[i]! + share * weight[k]!;
      }
    }
    // A sentence sharing no word with any other spreads its score evenly rather than losing it.
    let delta = 0;
    for (let i = 0; i < n; i += 1) {
      next[i] = next[i]! + (DAMPING * dangling) / n;
      delta += Math.abs(next[i]! - scores[i]!);
    }
    [scores, next] = [next, scores];
    if (delta < 1e-7) break;
  }
  return Array.from(scores);
}

/** Cuts text to at most maxChars at a word boundary, marking the cut with an ellipsis. */
export function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  // A space at index maxChars - 1 still leaves room for the ellipsis.
  const space = text.slice(0, maxChars).lastIndexOf(' ');
  const cut = space > maxChars / 2 ? text.slice(0, space) : text.slice(0, Math.max(0, maxChars - 1));
  return `${cut.replace(/[\s,;:]+$/, '')}…`;
}
