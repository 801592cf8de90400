/**
 * A search text read into its parts (search/query-parser.ts reads it): what the keyword and semantic statements
 * rank by and constrain with. Plain data; every part reaches SQL only as a bound parameter.
 */
export interface ParsedQuery {
  /** Free words, in order, as typed (stemming and stop words are the database's business). */
  terms: string[];
  /** Quoted phrases: a file must contain each one. */
  phrases: string[];
  /** Excluded words and phrases: a file containing any one is left out. */
  excluded: string[];
  /** All positive text (terms and phrase words) in order: the bag of words BM25 ranks by. */
  rankText: string;
  /** Positive text, lower-cased, single-spaced: compared with file names for the exact-name tier; null if none. */
  nameKey: string | null;
}
