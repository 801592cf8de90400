/**
 * Keyword search on the block index: the statements of query.ts in one REPEATABLE READ transaction (a consistent
 * view while the index is written and sealed), the Block-Max MaxScore evaluator of top-k.ts between them, and the
 * exact-file-name tier on top. Answers the same rows, in the same order, as scoring every posting would.
 */
import type { CandidateFilters } from '../queries/filters.js';
import type { ParsedQuery } from '../queries/parsed-query.js';
import type { SqlDatabase, SqlExecutor } from '../sql.js';
import { decodeFloat8, decodeInt4, decodeText } from '../binary.js';
import { contribution, decodeBlockBounds, decodeDocs, scorePostings, type Fields, type ScoredPostings } from './layout.js';
import {
  buildAdmitStatement,
  buildBlocksStatement,
  buildDocsOfStatement,
  buildFilesOfStatement,
  buildNamedStatement,
  buildTermsStatement,
  checkSettings,
  constrains,
  DEFAULT_KEYWORD_RANKING,
  fieldWeightList,
  type KeywordHitRow,
  type KeywordQueryOptions,
  type KeywordRankingSettings,
} from './query.js';
import { listCandidates } from './candidates.js';
import { blockMaxTopK, type EvalTerm, type TopKOptions, type TopKResult, type TopKStats } from './top-k.js';
import { sumPostings, termAtATimeTopK, type Sums, type TermPostings } from './taat.js';

export interface KeywordSearchResult {
  hits: KeywordHitRow[];
  /**
   * The files of `alsoIds` that `hits` left out, hold a query word and pass the filters, phrases and exclusions,
   * with their exact scores, best first (tier 0).
   */
  also: KeywordHitRow[];
  stats: TopKStats;
}

interface Term extends EvalTerm {
  lexeme: string;
  /** This term's contribution of a posting, from its weighted tf and length. */
  score: (tf: number, dl: number) => number;
}

/** A term's contribution of a posting, from its weighted tf and length (layout.ts, contribution). */
export function scorer(weight: number, c1: number, c2: number): (tf: number, dl: number) => number {
  return (tf, dl) => contribution(weight, c1, c2, tf, dl);
}

/** The bound of a block: its largest weighted tf over its smallest weighted length (the score grows with tf, falls with dl). */
export function blockBound(score: (tf: number, dl: number) => number, weights: Fields, maxTf: Fields, minLen: Fields): number {
  const [wa, wb, wc, wd] = weights;
  const tf = wa * maxTf[0] + wb * maxTf[1] + wc * maxTf[2] + wd * maxTf[3];
  if (tf === 0) return 0;
  return score(tf, wa * minLen[0] + wb * minLen[1] + wc * minLen[2] + wd * minLen[3]);
}

async function loadTerms(tx: SqlExecutor, query: ParsedQuery, settings: KeywordRankingSettings): Promise<{ terms: Term[]; dead: Set<number> }> {
  const statement = buildTermsStatement(query.rankText, settings, 'bounds', tx.bytesColumn);
  const weights = fieldWeightList(settings);
  const dead = new Set<number>();
  const terms = await tx.readBytes(statement.text, statement.params, (rows) =>
    rows.map(([lexeme, weight, c1, c2, bounds, deadDocs, tail]): Term => {
      const score = scorer(decodeFloat8(weight!), decodeFloat8(c1!), decodeFloat8(c2!));
      for (const doc of decodeDocs(deadDocs!)) dead.add(doc);
      return {
        lexeme: decodeText(lexeme!),
        score,
        blocks: decodeBlockBounds(bounds!).map((b) => ({ first: b.first, last: b.last, n: b.n, ub: blockBound(score, weights, b.maxTf, b.minLen) })),
        tail: scorePostings(tail!, weights, score),
      };
    }),
  );
  return { terms, dead };
}

/**
 * Every posting of the query's words summed into per-document scores (term at a time: taat.ts), read in one
 * statement and summed inside its reader (the reply's bytes are not kept). The postings of `wanted` words (the
 * words of phrases the postings settle) are decoded too, for holdingAll.
 */
async function loadSums(
  tx: SqlExecutor,
  query: ParsedQuery,
  settings: KeywordRankingSettings,
  wanted: ReadonlySet<string>,
): Promise<{ sums: Sums; postings: Map<string, ScoredPostings[]> }> {
  const statement = buildTermsStatement(query.rankText, settings, 'postings', tx.bytesColumn);
  const weights = fieldWeightList(settings);
  const dead = new Set<number>();
  const postings = new Map<string, ScoredPostings[]>();
  const sums = await tx.readBytes(statement.text, statement.params, (rows) => {
    const terms = rows.map(([lexeme, weight, c1, c2, blocks, deadDocs, tail]): TermPostings => {
      for (const doc of decodeDocs(deadDocs!)) dead.add(doc);
      const term = { lists: [blocks!, tail!], weight: decodeFloat8(weight!), c1: decodeFloat8(c1!), c2: decodeFloat8(c2!) };
      const word = decodeText(lexeme!);
      if (wanted.has(word)) {
        const score = scorer(term.weight, term.c1, term.c2);
        postings.set(word, term.lists.map((bytes) => scorePostings(bytes, weights, score)));
      }
      return term;
    });
    return sumPostings(terms, weights, dead);
  });
  return { sums, postings };
}

/**
 * The documents of `within` (all, when undefined) holding every one of `words`, from the postings of the query's
 * words by lexeme: a word the query's postings lack is held by no document.
 */
function holdingAll(words: readonly string[], postings: ReadonlyMap<string, ScoredPostings[]>, within: Set<number> | undefined): Set<number> {
  let out = within;
  for (const word of words) {
    const holding = new Set<number>();
    for (const { docs } of postings.get(word) ?? []) {
      for (let i = 0; i < docs.length; i++) if (out === undefined || out.has(docs[i]!)) holding.add(docs[i]!);
    }
    out = holding;
  }
  return out ?? new Set();
}

/**
 * How the top k is found: 'term-at-a-time' (taat.ts, the default: every posting read, one addition each) or
 * 'block-max' (top-k.ts: Block-Max MaxScore, which skips blocks that cannot reach the top k; `exhaustive` makes it
 * read and score everything, the baseline its pruning is measured against, and the default when it is set). Both
 * give the same hits and scores (test/store/keyword/search.test.ts checks them against each other).
 */
export interface KeywordEvaluation extends TopKOptions {
  evaluator?: 'term-at-a-time' | 'block-max';
  /** Documents a phrase's words share, and files passing the filters, before they count as common (candidates.ts; tests set it). */
  listLimit?: number;
}

/** The top `limit` files for the query's words (OR semantics, exact BM25F), the exact-name tier first. */
export async function searchKeyword(db: SqlDatabase, query: ParsedQuery, options: KeywordQueryOptions, evaluation: KeywordEvaluation = {}): Promise<KeywordSearchResult> {
  const settings = options.settings ?? DEFAULT_KEYWORD_RANKING;
  checkSettings(settings);
  const { limit } = options;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`invalid limit ${limit}`);
  const empty: KeywordSearchResult = { hits: [], also: [], stats: { rounds: 0, blocksRead: 0, postingsRead: 0, postingsTotal: 0, exactScores: 0 } };
  if (query.nameKey === null || query.rankText === '') return empty;
  const filters: CandidateFilters = options.filters ?? {};
  const weights = fieldWeightList(settings);

  return db.transaction(async (tx) => {
    // One snapshot for every statement: a seal moving postings from the tail into blocks meanwhile must not be seen
    // half (PGlite has one connection: its transaction already excludes every writer). No JIT: the planner's
    // estimates on a fresh or grown index are wild, and compiling costs a second where running costs milliseconds.
    await tx.exec('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; SET LOCAL jit = off');
    const named = await namedTier(tx, query, filters);
    const alsoDocs = options.alsoIds && options.alsoIds.length > 0 ? await docsOf(tx, options.alsoIds) : new Map<number, number>();
    // A rare phrase's or a narrow filter's files are listed first (candidates.ts): only their documents can be
    // answered. Term at a time holds every posting of the query's words, those of the other phrases' words among
    // them: a document must hold each, which narrows the candidates further and settles a phrase of one word (when
    // every field counts: a posting in a field weighted 0 is left out of the scored postings). What is left
    // (filters, exclusions, common phrases of several words) is checked on candidates as they come.
    const evaluator = evaluation.evaluator ?? (evaluation.exhaustive ? 'block-max' : 'term-at-a-time');
    const byPostings = evaluator === 'term-at-a-time' && weights.every((w) => w > 0);
    const listing = options.listing ?? (await listCandidates(tx, query, filters, { limit: evaluation.listLimit, oneWord: !byPostings }));
    let within = listing.files === null ? undefined : new Set((await docsOf(tx, listing.files)).keys());
    const checked = { files: null, unlisted: byPostings ? listing.unlisted.filter((_, i) => listing.lexemes[i]!.length > 1) : listing.unlisted };
    const checkedFilters = listing.filtersListed ? {} : filters;
    const check = constrains(query, checkedFilters, checked)
      ? async (docs: readonly number[]) => {
          const statement = buildAdmitStatement(query, checkedFilters, docs, checked)!;
          return tx.readBytes(statement.text, statement.params, ([row]) => new Set(decodeDocs(row?.[0] ?? null)));
        }
      : undefined;
    const admitAll = async (docs: readonly number[]): Promise<ReadonlySet<number>> => {
      const inside = within ? docs.filter((doc) => within!.has(doc)) : docs;
      return check && inside.length > 0 ? check(inside) : new Set(inside);
    };
    /** What a candidate must pass, as `within` stands when asked; undefined when nothing constrains. */
    const admit = () => (within === undefined && check === undefined ? undefined : admitAll);
    const k = limit + named.size;
    let result: TopKResult;
    /** Exact scores of documents the top k may have left out (0 for one holding none of the words): named files, alsoIds. */
    let exactScores: (docs: readonly number[]) => Promise<Map<number, number>>;
    if (evaluator === 'term-at-a-time') {
      const phraseWords = byPostings ? listing.lexemes : [];
      const { sums, postings } = await loadSums(tx, query, settings, new Set(phraseWords.flat()));
      for (const words of phraseWords) within = holdingAll(words, postings, within);
      const namedDocs = [...named.values()].map((entry) => entry.doc).filter((doc) => doc >= 0);
      const taat = await termAtATimeTopK(sums, k, check, [...namedDocs, ...alsoDocs.keys()], within);
      result = taat;
      exactScores = async () => taat.also; // every score was at hand
    } else {
      const bounds = await loadTerms(tx, query, settings);
      const { terms } = bounds;
      exactScores = (docs) => scoreDocs(tx, terms, bounds.dead, docs, weights);
      const constraint = admit();
      result = await blockMaxTopK(terms, bounds.dead, k, {
        fetch: async (requests) => {
          const statement = buildBlocksStatement(
            requests.map((r) => terms[r.term]!.lexeme),
            requests.map((r) => terms[r.term]!.blocks[r.block]!.first),
            tx.bytesColumn,
          );
          const out: ScoredPostings[] = new Array(requests.length);
          await tx.readBytes(statement.text, statement.params, (rows) => {
            for (const [ord, postings] of rows) {
              const i = decodeInt4(ord!) - 1;
              out[i] = scorePostings(postings!, weights, terms[requests[i]!.term]!.score);
            }
          });
          for (let i = 0; i < out.length; i++) if (!out[i]) throw new Error(`a block of '${terms[requests[i]!.term]!.lexeme}' is gone`);
          return out;
        },
        ...(constraint ? { admit: constraint } : {}),
      }, evaluation);
    }
    const { scores, stats } = result;
    // Named files that the words did not find get their score too (0 when they hold none of the words).
    const unscored = [...named.values()].filter((entry) => entry.doc >= 0 && !scores.has(entry.doc));
    if (unscored.length > 0) {
      const exact = await exactScores(unscored.map((entry) => entry.doc));
      for (const entry of unscored) entry.score = exact.get(entry.doc) ?? 0;
    }
    const hits = await rank(tx, scores, named, limit);
    return { hits, also: await alsoHits(alsoDocs, hits, exactScores, admit()), stats };
  });
}

/** The documents of the given files, doc → file id (a file has one document, none before it is indexed). */
async function docsOf(tx: SqlExecutor, fileIds: readonly number[]): Promise<Map<number, number>> {
  const fileOf = new Map<number, number>();
  const statement = buildDocsOfStatement(fileIds);
  await tx.readBytes(statement.text, statement.params, (rows) => {
    for (const [row] of rows) {
      const v = new DataView(row!.buffer, row!.byteOffset, row!.byteLength);
      fileOf.set(v.getInt32(0), Number(v.getBigInt64(4)));
    }
  });
  return fileOf;
}

/**
 * The `also` rows: the asked files the hits left out, with a positive exact score (a query word), that pass
 * `admit` (filters, phrases, exclusions), best first. The same scores as the hits': the evaluator's own sums.
 */
async function alsoHits(
  alsoDocs: ReadonlyMap<number, number>,
  hits: readonly KeywordHitRow[],
  exactScores: (docs: readonly number[]) => Promise<Map<number, number>>,
  admit: ((docs: readonly number[]) => Promise<ReadonlySet<number>>) | undefined,
): Promise<KeywordHitRow[]> {
  const listed = new Set(hits.map((h) => h.id));
  const wanted = [...alsoDocs].filter(([, file]) => !listed.has(file)).map(([doc]) => doc);
  if (wanted.length === 0) return [];
  const exact = await exactScores(wanted);
  let scored = wanted.filter((doc) => (exact.get(doc) ?? 0) > 0);
  if (admit && scored.length > 0) {
    const allowed = await admit(scored);
    scored = scored.filter((doc) => allowed.has(doc));
  }
  const also = scored.map((doc) => ({ id: alsoDocs.get(doc)!, score: exact.get(doc)!, tier: 0 }));
  also.sort((a, b) => b.score - a.score || a.id - b.id);
  return also;
}

interface NamedFile {
  tier: number;
  doc: number;
  score: number;
}

async function namedTier(tx: SqlExecutor, query: ParsedQuery, filters: CandidateFilters): Promise<Map<number, NamedFile>> {
  const statement = buildNamedStatement(query, filters);
  const named = new Map<number, NamedFile>();
  if (!statement) return named;
  await tx.readBytes(statement.text, statement.params, (rows) => {
    for (const [row] of rows) {
      const v = new DataView(row!.buffer, row!.byteOffset, row!.byteLength);
      named.set(Number(v.getBigInt64(0)), { tier: v.getInt32(8), doc: v.getInt32(12), score: 0 });
    }
  });
  return named;
}

/**
 * The exact scores of the given documents (0 for one holding none of the words), reading each block that could
 * hold one of them once, in one statement. Summed over the terms in the query's order, as the top-k sums them.
 */
async function scoreDocs(tx: SqlExecutor, terms: readonly Term[], dead: ReadonlySet<number>, docs: readonly number[], weights: Fields): Promise<Map<number, number>> {
  const contributions = new Map<number, Float64Array>();
  for (const doc of docs) if (!dead.has(doc)) contributions.set(doc, new Float64Array(terms.length));
  const wanted = new Map<string, { term: number; first: number }>();
  for (const [doc, parts] of contributions) {
    terms.forEach((term, t) => {
      const tailAt = term.tail.docs.indexOf(doc);
      if (tailAt >= 0) parts[t] = term.tail.scores[tailAt]!;
      const block = term.blocks.find((b) => b.first <= doc && doc <= b.last);
      if (block) wanted.set(`${t}:${block.first}`, { term: t, first: block.first });
    });
  }
  const requests = [...wanted.values()];
  if (requests.length > 0) {
    const statement = buildBlocksStatement(
      requests.map((w) => terms[w.term]!.lexeme),
      requests.map((w) => w.first),
      tx.bytesColumn,
    );
    await tx.readBytes(statement.text, statement.params, (rows) => {
      for (const [ord, postings] of rows) {
        const { term } = requests[decodeInt4(ord!) - 1]!;
        const scored = scorePostings(postings!, weights, terms[term]!.score);
        scored.docs.forEach((doc, at) => {
          const parts = contributions.get(doc);
          if (parts) parts[term] = scored.scores[at]!;
        });
      }
    });
  }
  const out = new Map<number, number>();
  for (const [doc, parts] of contributions) {
    let sum = 0;
    for (let t = 0; t < terms.length; t++) sum += parts[t]!;
    out.set(doc, sum);
  }
  return out;
}

/** Ranks by tier, score, file id (the ties need the file ids) and keeps `limit` rows. */
async function rank(tx: SqlExecutor, scores: Map<number, number>, named: Map<number, NamedFile>, limit: number): Promise<KeywordHitRow[]> {
  const namedDocs = new Set([...named.values()].map((n) => n.doc));
  const byScore = [...scores].filter(([doc]) => !namedDocs.has(doc)).sort((a, b) => b[1] - a[1]);
  // Every document scoring as much as the last one kept: they may tie, and the tie goes by file id.
  const room = Math.max(0, limit - named.size);
  const cut = byScore.length > room && room > 0 ? byScore[room - 1]![1] : Number.POSITIVE_INFINITY;
  const kept = room === 0 ? [] : byScore.filter(([, score], i) => i < room || score >= cut);
  const files = new Map<number, number>();
  if (kept.length > 0) {
    const statement = buildFilesOfStatement(kept.map(([doc]) => doc));
    await tx.readBytes(statement.text, statement.params, (rows) => {
      for (const [row] of rows) {
        const v = new DataView(row!.buffer, row!.byteOffset, row!.byteLength);
        files.set(v.getInt32(0), Number(v.getBigInt64(4)));
      }
    });
  }
  const hits: KeywordHitRow[] = [
    ...[...named].map(([id, n]) => ({ id, score: n.doc >= 0 ? (scores.get(n.doc) ?? n.score) : 0, tier: n.tier })),
    ...kept.filter(([doc]) => files.has(doc)).map(([doc, score]) => ({ id: files.get(doc)!, score, tier: 0 })),
  ];
  hits.sort((a, b) => b.tier - a.tier || b.score - a.score || a.id - b.id);
  return hits.slice(0, limit);
}
