/**
 * Keyword search on the block index against a real database (PGlite, and PostgreSQL with TEST_DATABASE_URL): BM25F
 * scores equal the reference formula, the exact-name tier, filters inside the query, phrases and exclusions, and
 * the pruned top-k equal to scoring every document, sealed, unsealed, deleted and re-indexed alike.
 */
import { expect } from 'chai';
import { insertFiles, type FileRowInput } from '../../../bench/lib/keyword-db.js';
import { bm25Score, type FieldValues } from '../../../src/store/keyword/bm25.js';
import type { CandidateFilters } from '../../../src/store/queries/filters.js';
import { sealKeywordIndex } from '../../../src/store/keyword/maintenance.js';
import { buildCandidateConditions, buildTermsStatement, DEFAULT_KEYWORD_RANKING, KEYWORD_TS_CONFIG, type KeywordHitRow, type KeywordRankingSettings } from '../../../src/store/keyword/query.js';
import { buildUnknownWordsQuery, findCorrections, KEYWORD_STEMMER, MAX_LENGTH, MIN_LENGTH, oneEditVariants, type CorrectionRow } from '../../../src/store/keyword/lexicon.js';
import { searchKeyword, type KeywordEvaluation } from '../../../src/store/keyword/search.js';
import { listCandidates, type CandidateListing } from '../../../src/store/keyword/candidates.js';
import { compactKeywordIndex } from '../../../src/store/keyword/compaction.js';
import { seededRandom } from '../../../scripts/lib/seeded-random.js';
import { parseSearchQuery } from '../../../src/search/query-parser.js';
import { SqlParams } from '../../../src/store/queries/params.js';
import type { SqlDatabase } from '../../../src/store/sql.js';
import { forEachEngine } from '../../helpers/engines.js';
import { openKeywordTestDb } from './fixture.js';

const f = (name: number, keywords: number, summary: number, content: number): FieldValues => ({ name, keywords, summary, content });

async function search(
  db: SqlDatabase,
  text: string,
  options: { limit?: number; filters?: CandidateFilters; settings?: KeywordRankingSettings; listing?: CandidateListing } & KeywordEvaluation = {},
): Promise<KeywordHitRow[]> {
  const { exhaustive, evaluator, listLimit, ...rest } = options;
  const evaluation: KeywordEvaluation = { exhaustive: exhaustive ?? false, ...(evaluator ? { evaluator } : {}), ...(listLimit !== undefined ? { listLimit } : {}) };
  return (await searchKeyword(db, parseSearchQuery(text), { limit: options.limit ?? 50, ...rest }, evaluation)).hits;
}

/** The files whose segments hold the phrase, by PostgreSQL's own phrase match: what every listing must agree with. */
async function filesHoldingPhrase(db: SqlDatabase, phrase: string): Promise<number[]> {
  const { rows } = await db.query<{ id: number }>(
    `SELECT DISTINCT file_id::integer AS id FROM file_segments WHERE tsv @@ phraseto_tsquery('${KEYWORD_TS_CONFIG}', $1) ORDER BY 1`,
    [phrase],
  );
  return rows.map((r) => r.id);
}

function file(name: string, rest: Partial<FileRowInput> = {}, dir = '/docs'): FileRowInput {
  const dot = name.lastIndexOf('.');
  return { path: `${dir}/${name}`, filename: name, extension: dot > 0 ? name.slice(dot + 1).toLowerCase() : '', ...rest };
}

describe('buildTermsStatement', () => {
  it('refuses settings that cannot have been validated', () => {
    expect(() => buildTermsStatement('x', { ...DEFAULT_KEYWORD_RANKING, b: 2 })).to.throw(/settings/);
    const zero = { name: 0, keywords: 0, summary: 0, content: 0 };
    expect(() => buildTermsStatement('x', { ...DEFAULT_KEYWORD_RANKING, fieldWeights: zero })).to.throw(/settings/);
  });

  it('never puts user text into the SQL, only into parameters', () => {
    const stmt = buildTermsStatement(`x'); DROP TABLE files; -- "a b" -c`, DEFAULT_KEYWORD_RANKING);
    expect(stmt.text).to.not.include('DROP');
    expect(stmt.params.some((p) => typeof p === 'string' && p.startsWith("x'); DROP TABLE files;"))).to.equal(true);
  });
});

forEachEngine('keyword search', (engine) => {
  let db: SqlDatabase;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ db, close } = await openKeywordTestDb(engine));
  });
  afterEach(() => close());

  it('scores exactly as the BM25F reference on a hand-checkable corpus', async () => {
    const [a, b, c] = await insertFiles(db, [
      file('alpha.txt', { title: 'alpha beta', keywords: ['gamma'], summary: 'beta delta', content: 'alpha gamma gamma delta zeta' }),
      file('kappa.md', { title: 'gamma', content: 'gamma kappa zeta zeta zeta beta' }),
      file('omega.pdf', { content: 'delta delta delta delta' }),
    ]);
    // By hand (file-name words count as name): lengths name/keywords/summary/content
    //   alpha.txt: alpha, txt, alpha, beta | gamma | beta, delta | alpha gamma gamma delta zeta
    //   kappa.md:  kappa, md, gamma        | -     | -           | gamma kappa zeta zeta zeta beta
    //   omega.pdf: omega, pdf              | -     | -           | delta ×4
    const collection = {
      documentCount: 3,
      totalLengths: f(4 + 3 + 2, 1, 2, 5 + 6 + 4),
      documentFrequency: new Map([
        ['gamma', 2],
        ['zeta', 2],
      ]),
    };
    const docs = new Map([
      [a!, { lengths: f(4, 1, 2, 5), termFrequencies: new Map([['gamma', f(0, 1, 0, 2)], ['zeta', f(0, 0, 0, 1)]]) }],
      [b!, { lengths: f(3, 0, 0, 6), termFrequencies: new Map([['gamma', f(1, 0, 0, 1)], ['zeta', f(0, 0, 0, 3)]]) }],
    ]);
    for (const settings of [
      { k1: 1.2, b: 0.75, queryTermFrequency: false, fieldWeights: f(2, 1, 0.5, 1) },
      { k1: 0.9, b: 0.4, queryTermFrequency: true, fieldWeights: f(0, 0, 0, 1) },
    ]) {
      const rows = await search(db, 'gamma zeta zeta', { settings });
      expect(rows.map((r) => r.id).sort()).to.deep.equal([a, b].sort());
      for (const row of rows) {
        const query = new Map([['gamma', 1], ['zeta', 2]]);
        const expected = bm25Score(query, docs.get(row.id)!, collection, { ...settings, weights: settings.fieldWeights });
        expect(row.score).to.be.closeTo(expected, 1e-6);
        expect(row.tier).to.equal(0);
      }
    }
    expect(c).to.be.a('number');
  });

  it('ranks an exact file-name match first, whole name before name without extension', async () => {
    const ids = await insertFiles(db, [
      file('annual report.pdf', { title: 'Report on reports', content: 'report report report reporting reports' }),
      file('report.docx', { content: 'quarterly figures' }),
      file('report.pdf', { content: 'nothing to see here' }),
      file('Report.PDF.bak', { content: 'a backup' }),
    ]);
    const [annual, docx, pdf] = ids;
    const byName = await search(db, 'report.pdf');
    expect(byName[0]).to.include({ id: pdf, tier: 2 });
    const byStem = await search(db, 'Report');
    expect(byStem.slice(0, 2).map((r) => r.id).sort()).to.deep.equal([docx, pdf].sort());
    expect(byStem.slice(0, 2).every((r) => r.tier === 1)).to.equal(true);
    expect(byStem[2]).to.include({ id: annual, tier: 0 });
    // a quoted name works too, and a name found only by its name scores 0 but is returned
    expect((await search(db, '"REPORT.PDF"'))[0]).to.include({ id: pdf, tier: 2 });
    expect((await search(db, 'report.docx'))[0]).to.include({ id: docx, tier: 2 });
    // A named file that the words alone would not rank within the limit keeps its exact score, by either evaluator.
    await insertFiles(db, Array.from({ length: 30 }, (_, i) => file(`r${i}.txt`, { title: 'Report of reports', content: 'report '.repeat(3 + (i % 4)) })));
    const full = await search(db, 'Report', { limit: 3, exhaustive: true });
    const named = full.filter((r) => r.tier > 0);
    expect(named.map((r) => r.id).sort()).to.deep.equal([docx, pdf].sort());
    const all = await search(db, 'Report', { limit: 50, exhaustive: true });
    const above = all.filter((r) => r.tier === 0 && r.score > Math.max(...named.map((n) => n.score)));
    expect(named.every((r) => r.score > 0) && above.length > 3 + named.length, 'the named files score, below the words\' top k').to.equal(true);
    for (const evaluator of ['block-max', 'term-at-a-time'] as const) expect(await search(db, 'Report', { limit: 3, evaluator }), evaluator).to.deep.equal(full);
  });

  it('applies filters inside the query: the one match is found however low it ranks', async () => {
    const rows: FileRowInput[] = [];
    for (let i = 0; i < 30; i++) rows.push(file(`zeta-${i}.txt`, { content: 'zeta '.repeat(5 + i), size: 100 + i, modified: `2024-01-${String(i + 1).padStart(2, '0')}T00:00:00Z` }, '/docs/a'));
    rows.push(file('weak.md', { content: 'zeta and many other words that make this file long and weak', keywords: ['Budget', 'plan'], size: 5, modified: '2023-05-01T00:00:00Z' }, '/docs/ab'));
    const ids = await insertFiles(db, rows);
    const weak = ids[30];
    expect((await search(db, 'zeta', { limit: 1 }))[0]!.id).to.not.equal(weak);
    const only = async (filters: CandidateFilters): Promise<number[]> => (await search(db, 'zeta', { limit: 1, filters })).map((r) => r.id);
    expect(await only({ extensions: ['md'] })).to.deep.equal([weak]);
    expect(await only({ directory: '/docs/ab' })).to.deep.equal([weak]);
    expect(await only({ pathGlob: '*.MD' })).to.deep.equal([weak]);
    expect(await only({ pathGlob: 'ab/*' })).to.deep.equal([weak]);
    expect(await only({ keywords: ['budget'] })).to.deep.equal([weak]);
    expect(await only({ sizeMax: 10 })).to.deep.equal([weak]);
    expect(await only({ modifiedBefore: '2023-12-31' })).to.deep.equal([weak]);
    // the directory scope stops at a path boundary: /docs/a does not contain /docs/ab/weak.md
    const inA = await search(db, 'zeta', { limit: 100, filters: { directory: '/docs/a' } });
    expect(inA).to.have.length(30);
    expect(inA.map((r) => r.id)).to.not.include(weak);
    const range = await search(db, 'zeta', { limit: 100, filters: { modifiedAfter: '2024-01-10', modifiedBefore: '2024-01-12T00:00:00Z', sizeMin: 110 } });
    expect(range.map((r) => r.id).sort((x, y) => x - y)).to.deep.equal([ids[10], ids[11]]);
  });

  it('keeps only files containing every quoted phrase, in any field or segment', async () => {
    const far = `${'filler '.repeat(4000)} heart failure here`;
    const [adjacent, apart, title, long] = await insertFiles(db, [
      file('a.txt', { content: 'patients with heart failure were treated' }),
      file('b.txt', { content: 'failure of the heart muscle; heart and failure' }),
      file('c.txt', { title: 'Heart failure', content: 'unrelated' }),
      file('d.txt', { content: far }),
    ]);
    const rows = await search(db, '"heart failure"');
    expect(rows.map((r) => r.id).sort()).to.deep.equal([adjacent, title, long].sort());
    expect(rows.map((r) => r.id)).to.not.include(apart);
    // two phrases: both required
    expect((await search(db, '"heart failure" "were treated"')).map((r) => r.id)).to.deep.equal([adjacent]);
    // a phrase of stop words only constrains nothing
    expect((await search(db, 'heart "of the"')).length).to.equal(4);
  });

  it('answers the same whether a phrase or a filter is listed first (rare, narrow) or checked on each candidate (common)', async () => {
    const random = seededRandom(7);
    const words = ['heart', 'failure', 'acute', 'chronic', 'patients', 'treated', 'renal', 'cardiac'];
    const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(' ');
    const ids = await insertFiles(
      db,
      Array.from({ length: 60 }, (_, i) => file(`f${i}.${i % 3 === 0 ? 'md' : 'txt'}`, { content: `${text(30)}${i % 7 === 0 ? ' draft' : ''}` })),
    );
    // A query whose phrase holds in some files and not others, whose words are everywhere; then two phrases.
    const holding = await filesHoldingPhrase(db, 'acute heart');
    expect(holding.length).to.be.within(5, ids.length - 5);
    const cases: [string, CandidateFilters][] = [
      ['"acute heart" failure patients', {}],
      ['"acute heart" failure -draft', {}],
      ['"acute heart" "renal failure" cardiac', {}],
      ['"acute heart" patients', { extensions: ['md'] }],
      ['"heart of the acute" chronic', {}],
      ['"the renal" acute', {}], // one word: settled by its postings
      ['"renal" "acute heart" patients -draft', { extensions: ['txt'] }],
      ['acute heart failure', { extensions: ['md'] }], // no phrase: the filter's files listed, or checked
      ['acute failure -draft', { directory: '/docs', extensions: ['txt'] }],
    ];
    for (const [text, filters] of cases) {
      for (const evaluator of ['term-at-a-time', 'block-max'] as const) {
        const listed = await search(db, text, { filters, evaluator, limit: 10 });
        const checked = await search(db, text, { filters, evaluator, limit: 10, listLimit: 0 });
        expect(checked, `${text} (${evaluator})`).to.deep.equal(listed);
        // listed once for both sides of a hybrid search (phrases of one word listed too)
        const listing = await db.transaction((tx) => listCandidates(tx, parseSearchQuery(text), filters));
        expect(await search(db, text, { filters, evaluator, limit: 10, listing }), `${text} (${evaluator}, shared)`).to.deep.equal(listed);
      }
    }
    const rows = await search(db, '"acute heart" failure', { limit: 100 });
    expect(rows.map((r) => r.id).sort((a, b) => a - b)).to.deep.equal(holding);
    expect((await search(db, '"acute heart" failure', { limit: 100, listLimit: 1 })).map((r) => r.id).sort((a, b) => a - b)).to.deep.equal(holding);
    // A field weighted 0 leaves its postings out of the scores: the one-word phrase is then checked on the segments.
    const noName: KeywordRankingSettings = { ...DEFAULT_KEYWORD_RANKING, fieldWeights: { ...DEFAULT_KEYWORD_RANKING.fieldWeights, name: 0 } };
    const named = await insertFiles(db, [file('renal.txt', { content: 'acute heart' })]);
    const oneWord = await search(db, '"renal" acute', { settings: noName, limit: 100 });
    expect(oneWord.map((r) => r.id)).to.include(named[0]);
    expect(await search(db, '"renal" acute', { settings: noName, limit: 100, listLimit: 0 })).to.deep.equal(oneWord);
  });

  it('lists the files of a rare phrase or a narrow filter, and none of a common or stop-word phrase', async () => {
    const [a, b, c] = await insertFiles(db, [
      file('a.txt', { content: 'heart failure in winter' }),
      file('b.txt', { content: 'failure of the heart' }),
      file('c.md', { title: 'Heart failure', content: 'heart failure, again' }, '/notes'),
    ]);
    const list = (text: string, options: { limit?: number; oneWord?: boolean; filters?: CandidateFilters } = {}) =>
      db.transaction((tx) => listCandidates(tx, parseSearchQuery(text), options.filters ?? {}, options));
    const none = { files: null, filtersListed: false, unlisted: [], lexemes: [] };
    const ac = [a!, c!].sort((x, y) => x - y);
    expect(await list('"heart failure"')).to.deep.equal({ ...none, files: ac });
    expect(await list('"heart failure" "in winter"')).to.deep.equal({ ...none, files: [a] });
    expect(await list('"heart failure" "in summer"')).to.deep.equal({ ...none, files: [] });
    // a and c hold the phrase (b both words, apart): two files are more than one; its words as the index has them
    const common = { unlisted: ['heart failure'], lexemes: [['failur', 'heart']] };
    expect(await list('"heart failure"', { limit: 1 })).to.deep.equal({ ...none, ...common });
    expect(await list('"heart failure"', { limit: 2 })).to.deep.equal({ ...none, files: ac });
    expect(await list('"heart failure" "in winter"', { limit: 1 })).to.deep.equal({ ...none, ...common, files: [a] });
    expect(await list('"Hearts of" failure', { limit: 0 })).to.deep.equal({ ...none, unlisted: ['Hearts of'], lexemes: [['heart']] });
    // a phrase of one word left to the keyword side's postings; one of several words still listed
    expect(await list('"Hearts of" "in winter"', { oneWord: false })).to.deep.equal({ ...none, unlisted: ['Hearts of', 'in winter'], lexemes: [['heart'], ['winter']] });
    expect(await list('"Hearts of" "heart failure"', { oneWord: false })).to.deep.equal({ ...none, files: ac, unlisted: ['Hearts of'], lexemes: [['heart']] });
    expect(await list('"Hearts of" "in winter"')).to.deep.equal({ ...none, files: [a] });
    expect(await list('heart "of the"')).to.deep.equal(none);
    expect(await list('heart failure')).to.deep.equal(none);
    // filters: listed when few files pass (settling them), left to each candidate when more than the limit do
    expect(await list('heart', { filters: { directory: '/notes' } })).to.deep.equal({ ...none, files: [c], filtersListed: true });
    expect(await list('heart', { filters: { extensions: ['txt'] } })).to.deep.equal({ ...none, files: [a!, b!].sort((x, y) => x - y), filtersListed: true });
    expect(await list('heart', { filters: { extensions: ['txt'] }, limit: 1 })).to.deep.equal(none);
    expect(await list('heart', { filters: { directory: '/elsewhere' } })).to.deep.equal({ ...none, files: [], filtersListed: true });
    // a listed phrase's short list is checked against the filters, not listed with them
    expect(await list('"in winter"', { filters: { directory: '/notes' } })).to.deep.equal({ ...none, files: [a] });
  });

  it("lists a phrase's files from its words' postings exactly as its positions say, sealed, in the tail, re-indexed or deleted", async () => {
    // Words from common to rare, so that the lists intersected differ in length by orders (the merge gallops).
    const random = seededRandom(11);
    const pick = () => {
      const r = random();
      return r < 0.5 ? 'heart' : r < 0.8 ? 'failure' : r < 0.95 ? 'acute' : r < 0.99 ? 'renal' : 'cardiac';
    };
    const text = (n: number) => Array.from({ length: n }, pick).join(' ');
    const ids = await insertFiles(db, Array.from({ length: 400 }, (_, i) => file(`p${i}.txt`, { content: text(12) })));
    const phrases = ['heart failure', 'acute heart', 'renal failure', 'cardiac heart failure', 'heart cardiac', 'renal renal', 'failure'];
    const truth = (phrase: string) => filesHoldingPhrase(db, phrase);
    const same = async (when: string) => {
      for (const phrase of phrases) {
        const listing = await db.transaction((tx) => listCandidates(tx, parseSearchQuery(`"${phrase}"`), {}, { limit: 1000 }));
        expect(listing.files, `${phrase} (${when})`).to.deep.equal(await truth(phrase));
      }
    };
    await same('all in the tail');
    await sealKeywordIndex(db, 150);
    await same('sealed and in the tail');
    // Re-indexed files get new documents; their old ones stay in the sealed blocks, buried. Deleted files too.
    await db.query(`UPDATE files SET content = $2 WHERE id = ANY($1::bigint[])`, [ids.filter((_, i) => i % 9 === 1), 'cardiac heart failure']);
    await db.query(`DELETE FROM files WHERE id = ANY($1::bigint[])`, [ids.filter((_, i) => i % 10 === 3)]);
    await same('re-indexed and deleted');
    while ((await sealKeywordIndex(db, 100)).remaining > 0);
    await same('all sealed');
    expect((await truth('cardiac heart failure')).length).to.be.above(40);
    // A phrase repeating one word is not that word: every path checks its positions.
    const twice = await truth('renal renal');
    expect(twice.length).to.be.below((await truth('renal')).length);
    for (const evaluator of ['term-at-a-time', 'block-max'] as const) {
      for (const listLimit of [1000, 0]) {
        const found = await search(db, '"renal renal" heart', { evaluator, limit: 500, listLimit });
        expect(found.map((r) => r.id).sort((a, b) => a - b), `${evaluator}, list limit ${listLimit}`).to.deep.equal(twice);
      }
    }
  });

  it('leaves out files with an excluded word or phrase, wherever it occurs', async () => {
    const [plain, draftInContent, draftKeyword, oldCopy] = await insertFiles(db, [
      file('budget.txt', { content: 'budget for 2024' }),
      file('budget-2.txt', { content: 'budget drafts for 2024' }),
      file('budget-3.txt', { content: 'budget 2024', keywords: ['draft'] }),
      file('budget-4.txt', { content: 'budget: the old copy' }),
    ]);
    expect((await search(db, 'budget -draft')).map((r) => r.id).sort()).to.deep.equal([plain, oldCopy].sort());
    expect((await search(db, 'budget -"old copy" -draft')).map((r) => r.id)).to.deep.equal([plain]);
    expect((await search(db, 'budget -"copy old"')).map((r) => r.id).sort()).to.deep.equal([plain, draftInContent, draftKeyword, oldCopy].sort());
    // an excluded stop word excludes nothing
    expect((await search(db, 'budget -the')).length).to.equal(4);
  });

  it('shares its phrase and exclusion conditions with other queries (the semantic side)', async () => {
    const [yes, no] = await insertFiles(db, [file('x.txt', { content: 'heart failure' }), file('y.txt', { content: 'heart failure draft' })]);
    const params = new SqlParams();
    const conditions = buildCandidateConditions(parseSearchQuery('"heart failure" -draft'), { extensions: ['txt'] }, params, 'f');
    const { rows } = await db.query<{ id: number }>(`SELECT f.id FROM files f WHERE ${conditions.join(' AND ')} ORDER BY f.id`, params.values);
    expect(rows.map((r) => r.id)).to.deep.equal([yes]);
    expect(no).to.be.a('number');
  });

  it('answers nothing when there is nothing positive to look for', async () => {
    await insertFiles(db, [file('draft.txt', { content: 'old copy draft' })]);
    for (const text of ['', '   ', '-draft', '-"old copy"', '""']) expect(await search(db, text), text).to.deep.equal([]);
  });

  it('finds a failed file (no text) by its name', async () => {
    const [failed] = await insertFiles(db, [file('scan-2019.pdf', { status: 'failed' }), file('other.txt', { content: 'scan' })]);
    expect((await search(db, 'scan-2019.pdf'))[0]).to.include({ id: failed, tier: 2 });
    expect((await search(db, 'scan 2019')).map((r) => r.id)).to.include(failed);
  });

  it('never fails on odd input', async () => {
    await insertFiles(db, [file('odd.txt', { content: "o'brien a&b c|d (e) it's 100% <tag> \\path" })]);
    const inputs = [
      "'", '\\', '"', '""""', 'a&b|c', '!!', '!', ':*', 'x:*', '(', ')', '(a | b) & !c', '<->', '<1>', "''''", '--x', '-', '- -',
      'x\u0000y', '日本語のテキスト', '😀 emoji', 'a'.repeat(3000), '%_', '$1 $2', "'; DROP TABLE files; --", 'o\'brien', '100%', '<tag>',
      '"unbalanced', '-"', '-"a', '*', '?', '[a-z]', '{}', '\\\\', '\u202e\u200b', 'NULL', 'null::tsquery',
    ];
    for (const text of inputs) {
      await search(db, text, { filters: { pathGlob: '*.txt', keywords: ["it's"] } });
      await search(db, text);
    }
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM files')).rows[0]!.n).to.equal(1);
    expect((await search(db, "o'brien"))[0]).to.be.an('object');
  });

  it('term at a time, Block-Max pruning and scoring every document agree, with the same scores, sealed or not, after deletes, re-indexing and compaction', async function () {
    this.timeout(180_000);
    // A corpus with skew (a few topical words) and noise, so that pruning has work to do and ties happen.
    const random = seededRandom(7);
    const vocabulary = Array.from({ length: 400 }, (_, i) => `w${i}`);
    const pick = () => vocabulary[Math.floor(random() ** 2 * vocabulary.length)]!;
    const text = (n: number) => Array.from({ length: n }, pick).join(' ');
    const rows = Array.from({ length: 900 }, (_, i) =>
      file(`f${i}.txt`, { title: random() < 0.3 ? text(3) : '', keywords: random() < 0.2 ? [pick(), pick()] : [], content: text(5 + Math.floor(random() * 120)) }),
    );
    const ids = await insertFiles(db, rows);
    const queries = Array.from({ length: 25 }, (_, i) => (i % 5 === 0 ? `w1 w2 ${pick()}` : text(2 + (i % 6))));
    const same = async (label: string) => {
      for (const q of queries) {
        for (const limit of [1, 7, 50]) {
          const full = await search(db, q, { limit, exhaustive: true });
          expect(await search(db, q, { limit, evaluator: 'block-max' }), `${label}: '${q}' top ${limit}, Block-Max`).to.deep.equal(full);
          expect(await search(db, q, { limit }), `${label}: '${q}' top ${limit}, term at a time`).to.deep.equal(full);
        }
      }
    };
    await same('all unsealed');
    await sealKeywordIndex(db, 300);
    await same('a third sealed');
    while ((await sealKeywordIndex(db, 250)).remaining > 0);
    await same('all sealed');
    // Deleted and re-indexed documents leave dead postings in their blocks; new ones land in the tail.
    await db.query('DELETE FROM files WHERE id = ANY($1::bigint[])', [ids.filter((_, i) => i % 7 === 0)]);
    await db.query(`UPDATE files SET content = content || ' w1 w1 w2' WHERE id = ANY($1::bigint[])`, [ids.filter((_, i) => i % 11 === 1)]);
    await insertFiles(db, Array.from({ length: 60 }, (_, i) => file(`g${i}.txt`, { content: text(40) })));
    await same('with dead postings and a tail');
    const dead = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM keyword_dead')).rows[0]!.n;
    expect(dead).to.be.greaterThan(0);
    await sealKeywordIndex(db, 1000);
    await same('sealed again');
    // Compaction rewrites the blocks (dead postings dropped, blocks repacked from the first document).
    for (let step: 'now' | 'no' = 'now'; (await compactKeywordIndex(db, { blocks: 64 }, step, 1)).state === 'running'; step = 'no');
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM keyword_dead')).rows[0]!.n).to.equal(0);
    await same('compacted');
    await db.query(`UPDATE files SET content = content || ' w3' WHERE id = ANY($1::bigint[])`, [ids.filter((_, i) => i % 13 === 2)]);
    await sealKeywordIndex(db, 1000);
    await same('re-indexed and sealed after compaction');
    // And with filters, settings of other weights, and phrases.
    for (const q of queries.slice(0, 8)) {
      for (const evaluator of ['block-max', 'term-at-a-time'] as const) {
        // A filter most documents pass, one that few pass (the best documents are asked first, then more), a
        // phrase and an exclusion (admitted inside the query too).
        for (const [text, filters] of [[q, { pathGlob: 'f1*.txt' }], [q, { pathGlob: 'f?7?.txt' }], [`${q} "w1 w2"`, {}], [`${q} -w2`, {}]] as const) {
          expect(await search(db, text, { limit: 10, filters, evaluator }), `${evaluator}: ${text} ${JSON.stringify(filters)}`).to.deep.equal(await search(db, text, { limit: 10, filters, exhaustive: true }));
        }
        const settings = { k1: 0.9, b: 0.4, queryTermFrequency: true, fieldWeights: f(0, 2, 0, 1) };
        expect(await search(db, q, { limit: 10, settings, evaluator }), `${evaluator}: ${q} with other settings`).to.deep.equal(await search(db, q, { limit: 10, settings, exhaustive: true }));
      }
    }
  });

  it('scores a sealed document exactly as it scored in the tail', async () => {
    await insertFiles(db, Array.from({ length: 200 }, (_, i) => file(`s${i}.txt`, { content: `alpha ${'beta '.repeat(i % 9)} gamma${i % 13}` })));
    const before = await search(db, 'alpha beta gamma3', { limit: 200 });
    while ((await sealKeywordIndex(db, 64)).remaining > 0);
    expect(await search(db, 'alpha beta gamma3', { limit: 200 })).to.deep.equal(before);
  });

  it('scores the files asked besides the top k (alsoIds) exactly as the full search does, under both evaluators, filters applied', async () => {
    const ids = await insertFiles(db, Array.from({ length: 300 }, (_, i) => file(`o${i}.${i % 2 ? 'md' : 'txt'}`, { content: `alpha ${'beta '.repeat(i % 7)} gamma${i % 11}` })));
    await sealKeywordIndex(db, 150); // half sealed, half in the tail
    const full = new Map((await search(db, 'beta gamma4', { limit: 300 })).map((h) => [h.id, h.score]));
    const asked = ids.filter((_, i) => i % 5 === 0);
    for (const evaluator of ['term-at-a-time', 'block-max'] as const) {
      const { hits, also } = await searchKeyword(db, parseSearchQuery('beta gamma4'), { limit: 10, alsoIds: asked }, { evaluator });
      expect(hits).to.have.length(10);
      expect(also.length).to.be.greaterThan(10);
      for (const h of also) expect(h.score).to.equal(full.get(h.id));
      // Every asked file that holds a query word is in the hits or in `also`, never in both, and nothing else.
      const listed = new Set(hits.map((h) => h.id));
      expect(also.some((h) => listed.has(h.id))).to.equal(false);
      expect(also.map((h) => h.id).sort((x, y) => x - y)).to.deep.equal(asked.filter((id) => full.has(id) && !listed.has(id)).sort((x, y) => x - y));
      expect(also.map((h) => h.score)).to.deep.equal([...also.map((h) => h.score)].sort((x, y) => y - x)); // best first
      const md = await searchKeyword(db, parseSearchQuery('beta gamma4'), { limit: 10, alsoIds: asked, filters: { extensions: ['md'] } }, { evaluator });
      expect(md.also.length).to.be.greaterThan(0);
      expect([...md.hits, ...md.also].every((h) => ids.indexOf(h.id) % 2 === 1)).to.equal(true);
      // A list that is not full holds every file with a query word: nothing is left for `also`.
      expect((await searchKeyword(db, parseSearchQuery('beta gamma4'), { limit: 300, alsoIds: asked }, { evaluator })).also).to.deep.equal([]);
    }
  });

  it('corrects a word no file holds to the word one edit away that files hold, sealed or in the tail', async () => {
    const corrections = (text: string): Promise<CorrectionRow[]> => findCorrections(db, text);
    await insertFiles(db, [
      ...Array.from({ length: 5 }, (_, i) => file(`p${i}.txt`, { content: 'change your password often' })),
      file('q.txt', { content: 'passport renewal' }),
    ]);
    const expected = (rows: CorrectionRow[]) => rows.map((r) => [r.word, r.replacement, r.df]);
    expect(expected(await corrections('pasword chnage renewal'))).to.deep.equal([['chnage', 'change', 5], ['pasword', 'password', 5]]);
    while ((await sealKeywordIndex(db, 2)).remaining > 0);
    await insertFiles(db, [file('r.txt', { content: 'password manager' })]); // one more in the tail
    expect(expected(await corrections('pasword chnage renewal'))).to.deep.equal([['chnage', 'change', 5], ['pasword', 'password', 6]]);
    expect(await corrections('password change')).to.deep.equal([]);
  });

  it('shows the spelling that files hold when misspellings share its stem, sealed or in the tail', async () => {
    // 'microenviroment' is one edit from 'microenvironment' (an n inserted) and from 'microenvironent' (m for n);
    // both stem to the same lexeme, so step 4 alone chose the same-length one, a word no file holds.
    const stems = await db.query<{ a: string[]; b: string[] }>(
      `SELECT ts_lexize('${KEYWORD_STEMMER}', 'microenvironment') AS a, ts_lexize('${KEYWORD_STEMMER}', 'microenvironent') AS b`,
    );
    expect(stems.rows[0]!.a).to.deep.equal(stems.rows[0]!.b);
    expect(oneEditVariants('microenviroment')).to.include.members(['microenvironment', 'microenvironent']);
    await insertFiles(db, Array.from({ length: 3 }, (_, i) => file(`m${i}.txt`, { content: 'the tumour Microenvironments shape the response' })));
    const shown = async (): Promise<string[][]> => (await findCorrections(db, 'microenviroment')).map((r) => [r.word, r.replacement]);
    expect(await shown()).to.deep.equal([['microenviroment', 'microenvironment']]);
    while ((await sealKeywordIndex(db, 2)).remaining > 0);
    expect(await shown()).to.deep.equal([['microenviroment', 'microenvironment']]);
    // A spelling no file writes: the rule before it decides (the same length as typed).
    await db.query(`UPDATE files SET content = 'the tumour microenviron shapes the response'`);
    expect(await shown()).to.deep.equal([['microenviroment', 'microenvironent']]);
  });

  it(`corrects words of ${MIN_LENGTH} to ${MAX_LENGTH} letters only: a longer run of letters is taken as typed`, async () => {
    const corrections = (text: string): Promise<CorrectionRow[]> => findCorrections(db, text);
    // Words without a vowel: the stemmer leaves them whole. Each is held; the query types it one letter short.
    const letters = 'zyxwvtsrqpnmlkjhgfdcb'.repeat(4);
    const held = (n: number) => letters.slice(0, n);
    const short = (n: number) => held(n).slice(0, 10) + held(n).slice(11);
    await insertFiles(db, [file('long.txt', { content: `${held(MAX_LENGTH + 1)} and ${held(MAX_LENGTH + 2)}` })]);
    expect(short(MAX_LENGTH + 1)).to.have.length(MAX_LENGTH);
    expect((await corrections(short(MAX_LENGTH + 1))).map((r) => [r.word, r.replacement])).to.deep.equal([[short(MAX_LENGTH + 1), held(MAX_LENGTH + 1)]]);
    expect(await corrections(short(MAX_LENGTH + 2))).to.deep.equal([]);
  });

  it('spells out every one-edit variant of a word once, letters counted as code points', () => {
    const variants = oneEditVariants('abc');
    expect(new Set(variants).size).to.equal(variants.length);
    expect(variants).to.not.include('abc');
    expect(variants).to.include.members(['bc', 'ac', 'ab', 'bac', 'acb', 'xbc', 'azc', 'abz', 'zabc', 'abzc', 'abcz']);
    // 3 deletions, 2 swaps, 26 x 3 replacements less the 3 that give 'abc' back, 26 x 4 insertions less the 3 made
    // twice ('aabc', 'abbc', 'abcc': a letter doubled before or after itself)
    expect(variants.length).to.equal(3 + 2 + (78 - 3) + (104 - 3));
    expect(oneEditVariants('a😀b')).to.include.members(['ab', 'a😀', '😀b', '😀ab', 'ab😀']);
    // No half of a surrogate pair alone: each variant survives UTF-8 (how it is sent to the database) unchanged.
    expect(oneEditVariants('a😀b').every((v) => Buffer.from(v, 'utf8').toString('utf8') === v)).to.equal(true);
  });

  it('reads the words of a query to correct as ts_debug() reads them with the configuration (their tokens and lexemes)', async () => {
    // buildUnknownWordsQuery reads words with ts_parse() and ts_lexize() (a quarter of ts_debug's cost): the same
    // words and lexemes for hyphenated words, letters beyond ASCII, stop words, tokens of other kinds (numbers,
    // versions, hosts, paths, e-mails), and words outside the 4-32 letters corrected.
    const texts = [
      'Free histones are degraded by a Rad53-dependent mechanism once DNA has been replicated.',
      'NFAT4 activation requires IP3R-mediated Ca2+ mobilization in MOZ-TIF2-induced leuekmogenesis',
      'über-cool Straße naïve café façade',
      'state-of-the-art e-mail x-ray 10-fold',
      "HTTP/2 path/to/file.txt user@example.com http://x.org/a-b v1.2.3 3.14 don't O'Brien",
      'ΑΒΓ δέλτα кириллица слово the and of which',
      `${'a'.repeat(33)} ${'b'.repeat(32)} abc abcd`,
    ];
    const { rows } = await db.query<{ text: string; reference: string[][]; read: string[][] }>(
      `SELECT t AS text,
              (SELECT coalesce(array_agg(ARRAY[x.word, x.lexeme] ORDER BY x.word, x.lexeme), '{}')
               FROM (SELECT DISTINCT lower(d.token) AS word, d.lexemes[1] AS lexeme FROM ts_debug('${KEYWORD_TS_CONFIG}', t) AS d
                     WHERE d.alias IN ('asciiword', 'word', 'hword_asciipart', 'hword_part') AND cardinality(d.lexemes) = 1
                       AND char_length(d.token) BETWEEN ${MIN_LENGTH} AND ${MAX_LENGTH}) AS x) AS reference
       FROM unnest($1::text[]) AS t`,
      [texts],
    );
    for (const row of rows) {
      // With no file indexed, every lexeme is unknown: the statement answers every word it read (each text has
      // fewer than the 8 a query is cut to).
      const statement = buildUnknownWordsQuery(row.text)!;
      const read = (await db.query<{ word: string }>(statement.text, statement.params)).rows.map((r) => r.word);
      const expected = [...new Set(row.reference.map(([word]) => word!))];
      expect(expected.length).to.be.below(8);
      expect([...read].sort(), row.text).to.deep.equal(expected.sort());
    }
    expect(rows.map((r) => r.reference.length)).to.not.include(0);
  });

  it("stems a variant with the configuration's stemmer exactly as to_tsvector() would", async () => {
    // findCorrections stems variants with ts_lexize() on KEYWORD_STEMMER, the keyword index with to_tsvector() on its
    // configuration: for runs of letters both must give the same lexeme (or none, for a stop word).
    const words = ['pasword', 'running', 'thee', 'café', 'naïve', 'studies', 'ahve', 'generalisations'];
    const variants = [...new Set(words.flatMap((w) => [w, ...oneEditVariants(w)]))];
    const { rows } = await db.query<{ variant: string; parsed: string | null; stemmed: string | null }>(
      `SELECT v AS variant,
              CASE WHEN cardinality(p) = 1 THEN p[1] END AS parsed,
              CASE WHEN cardinality(l) = 1 THEN l[1] END AS stemmed
       FROM unnest($1::text[]) AS v,
            LATERAL (SELECT tsvector_to_array(to_tsvector('${KEYWORD_TS_CONFIG}', v)) AS p, ts_lexize('${KEYWORD_STEMMER}', v) AS l) AS x`,
      [variants],
    );
    expect(rows).to.have.length(variants.length);
    expect(rows.filter((r) => r.parsed !== r.stemmed)).to.deep.equal([]);
    expect(rows.filter((r) => r.stemmed === null).map((r) => r.variant)).to.include('the');
  });
});
