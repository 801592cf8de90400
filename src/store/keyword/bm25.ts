/**
 * Okapi BM25 as Lucene and Anserini compute it, with BM25F-style field weighting. This is the reference: the
 * service computes the same formula inside the database (keyword-query.ts), and the tests check one against the
 * other. Pure functions with explicit arguments, after Orama's `BM25(tf, matchingCount, docsCount, ...)`.
 */

export interface Bm25Params {
  /** Term-frequency saturation: 0 = presence only; larger = more credit for repeats. */
  k1: number;
  /** Length normalisation: 0 = none, 1 = full. */
  b: number;
}

/**
 * The indexed fields of a file, in the order of their tsvector weight labels A..D: `name` is the file name's
 * words together with the title. Used for per-field term frequencies, lengths and weights alike.
 */
export interface FieldValues {
  name: number;
  keywords: number;
  summary: number;
  content: number;
}

export type FieldWeights = FieldValues;

/**
 * Inverse document frequency, Lucene's variant: ln(1 + (N - df + 0.5) / (df + 0.5)). Unlike the classic
 * Robertson idf it never goes negative, so a term in more than half the files still counts a little.
 */
export function bm25Idf(documentFrequency: number, documentCount: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/**
 * One query term's contribution to one file: idf · tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl)).
 * The (k1+1) factor does not change the order (Lucene 8+ drops it) but keeps scores comparable to the literature.
 */
export function bm25TermScore(
  termFrequency: number,
  documentFrequency: number,
  documentCount: number,
  documentLength: number,
  averageDocumentLength: number,
  { k1, b }: Bm25Params,
): number {
  if (termFrequency <= 0) return 0;
  const norm = k1 * (1 - b + (b * documentLength) / averageDocumentLength);
  return (bm25Idf(documentFrequency, documentCount) * termFrequency * (k1 + 1)) / (termFrequency + norm);
}

/**
 * BM25F (the simple form with one b): per-field term frequencies and lengths are combined with the same
 * weights before saturation, so a title word counts like `weight` body words and long titles are normalised too.
 */
export function weightedSum(values: FieldValues, weights: FieldWeights): number {
  return (
    values.name * weights.name +
    values.keywords * weights.keywords +
    values.summary * weights.summary +
    values.content * weights.content
  );
}

/** Everything needed to score one file for a bag of query terms. */
export interface Bm25Document {
  /** Per query lexeme, its per-field term frequencies in this file (absent = 0). */
  termFrequencies: ReadonlyMap<string, FieldValues>;
  /** Per-field token counts of this file. */
  lengths: FieldValues;
}

export interface Bm25Collection {
  documentCount: number;
  /** Per-field sums of the lengths over all files (avgdl = weighted sum / documentCount). */
  totalLengths: FieldValues;
  /** Files containing each lexeme (in any field). */
  documentFrequency: ReadonlyMap<string, number>;
}

/**
 * Full BM25F score of one file: the sum over query lexemes (each counted `queryCount` times when query term
 * frequency is used) of bm25TermScore with weighted tf and length.
 */
export function bm25Score(
  query: ReadonlyMap<string, number>,
  doc: Bm25Document,
  collection: Bm25Collection,
  params: Bm25Params & { weights: FieldWeights; queryTermFrequency: boolean },
): number {
  const avgdl = Math.max(weightedSum(collection.totalLengths, params.weights) / Math.max(collection.documentCount, 1), 1e-9);
  const dl = weightedSum(doc.lengths, params.weights);
  let score = 0;
  for (const [lexeme, queryCount] of query) {
    const tfs = doc.termFrequencies.get(lexeme);
    const df = collection.documentFrequency.get(lexeme) ?? 0;
    if (!tfs || df === 0) continue;
    const tf = weightedSum(tfs, params.weights);
    score += (params.queryTermFrequency ? queryCount : 1) * bm25TermScore(tf, df, collection.documentCount, dl, avgdl, params);
  }
  return score;
}
