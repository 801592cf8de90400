import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import stem from 'wink-porter2-stemmer';
import { createSearchRepository } from '../../src/store/repositories/search.repository.js';
import { buildSnippet, highlightWords, TermMatcher, type Snippet } from '../../src/search/snippet.js';
import type { SqlDatabase } from '../../src/store/sql.js';
import { forEachEngine } from '../helpers/engines.js';
import { sharedPath } from '../helpers/shared.js';
import { openKeywordTestDb } from '../store/keyword/fixture.js';
import { insertFiles } from '../../bench/lib/keyword-db.js';

/** The distinct lower-case words of the first `chars` characters of the SciFact corpus. */
function scifactVocabulary(chars = Infinity): string[] {
  const text = readFileSync(sharedPath('datasets', 'scifact', 'corpus.jsonl'), 'utf8').slice(0, chars);
  return [...new Set(text.toLowerCase().match(/\p{L}+/gu) ?? [])];
}

const highlighted = (s: Snippet) => s.highlights.map(([a, b]) => s.text.slice(a, b));

describe('TermMatcher', () => {
  it('matches the inflections of the query lexemes, ignoring case, and nothing else', () => {
    const m = new TermMatcher(['tomato', 'grow']);
    expect(m.termCount).to.equal(2);
    expect(['Tomatoes', 'tomato', 'growing', 'GROWS', 'grow'].map((w) => m.match(w))).to.deep.equal([0, 0, 1, 1, 1]);
    expect(['potato', 'grew', 'growth', 'to', 'tom'].map((w) => m.match(w))).to.deep.equal([-1, -1, -1, -1, -1]);
  });

  it("matches words whose stem changes the lexeme's last letter, and Porter2's irregular forms", () => {
    expect(new TermMatcher(['happi']).match('happy')).to.equal(0);
    expect(new TermMatcher(['happi']).match('happiness')).to.equal(0);
    expect(new TermMatcher(['hope']).match('hoping')).to.equal(0);
    expect(new TermMatcher(['die']).match('dying')).to.equal(0);
    expect(new TermMatcher(['sky']).match('skies')).to.equal(0);
  });

  it('matchAt() skips words by their first letters only when they cannot match', () => {
    const m = new TermMatcher(['tomato', 'x']);
    const text = 'Tomatoes, tom, xylophone, potatoes, Ünïcode, t';
    const at = (word: string) => m.matchAt(text, text.indexOf(word), text.indexOf(word) + word.length);
    expect(['Tomatoes', 'tom', 'xylophone', 'potatoes', 'Ünïcode', 't'].map(at)).to.deep.equal([0, -1, -1, -1, -1, -1]);
    expect(new TermMatcher(['x']).matchAt('X', 0, 1)).to.equal(0);
    expect(new TermMatcher(['über']).matchAt('Über', 0, 4)).to.equal(0);
  });

  it('matches words with digits as they are (PostgreSQL does not stem them)', () => {
    const m = new TermMatcher(['p53', '2019']);
    expect([m.match('P53'), m.match('2019'), m.match('2018')]).to.deep.equal([0, 1, -1]);
  });

  it('never skips a word that stems to a query lexeme (its cheap pre-check is sound), over the SciFact vocabulary', () => {
    const capitalised = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
    const missed = scifactVocabulary().filter((w) => {
      const matcher = new TermMatcher([stem(w)]);
      const upper = capitalised(w);
      // (µ capitalises to Greek Μ, which lower-cases to μ: a different word)
      const upperMisses = upper.toLowerCase() === w && matcher.matchAt(` ${upper}.`, 1, w.length + 1) !== 0;
      return matcher.matchAt(w, 0, w.length) !== 0 || upperMisses;
    });
    expect(missed).to.deep.equal([]);
  });
});

describe('buildSnippet', () => {
  const options = { fragmentWords: 8, maxFragments: 2, leadWords: 2 };

  it('shows a short text whole, with its whitespace collapsed and the matching words highlighted', () => {
    const s = buildSnippet('Tomatoes grow\n\n  well.   We grew  tomatoes.', new TermMatcher(['tomato', 'grow']));
    expect(s.text).to.equal('Tomatoes grow well. We grew tomatoes.');
    expect(s.highlights).to.deep.equal([
      [0, 8],
      [9, 13],
      [28, 36],
    ]);
  });

  it('cuts the passage holding the most distinct query words, with its lead-in and ellipses at the cuts', () => {
    const text = 'one two three alpha four five six seven eight nine ten alpha beta eleven twelve thirteen fourteen fifteen';
    const s = buildSnippet(text, new TermMatcher(['alpha', 'beta']), options);
    expect(s.text).to.equal('… nine ten alpha beta eleven twelve thirteen fourteen …');
    expect(highlighted(s)).to.deep.equal(['alpha', 'beta']);
  });

  it('adds a second passage only for query words the first does not show', () => {
    const filler = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');
    const text = `${filler(20, 'a')} alpha ${filler(20, 'b')} beta ${filler(20, 'c')} alpha ${filler(20, 'd')}`;
    const two = buildSnippet(text, new TermMatcher(['alpha', 'beta']), options);
    expect(two.text).to.equal('… a18 a19 alpha b0 b1 b2 b3 b4 … b18 b19 beta c0 c1 c2 c3 c4 …');
    expect(highlighted(two)).to.deep.equal(['alpha', 'beta']);
    const one = buildSnippet(text, new TermMatcher(['alpha']), options);
    expect(one.text).to.equal('… a18 a19 alpha b0 b1 b2 b3 b4 …');
    expect(buildSnippet(text, new TermMatcher(['alpha', 'beta']), { ...options, maxFragments: 1 }).text).to.equal(one.text);
  });

  it('keeps the punctuation closing a passage and cuts long runs between words short', () => {
    const text = 'Results (see alpha). ==================== Next part here and more words follow';
    const cut = (fragmentWords: number) => buildSnippet(text, new TermMatcher(['alpha']), { ...options, fragmentWords }).text;
    expect(cut(3)).to.equal('Results (see alpha). …');
    expect(cut(4)).to.equal('Results (see alpha). Next …');
  });

  it('gives the opening words of a text without query words, and nothing for a text without words', () => {
    const s = buildSnippet('one two three four five six seven eight nine ten', new TermMatcher(['alpha']), options);
    expect(s).to.deep.equal({ text: 'one two three four five six seven eight …', highlights: [] });
    expect(buildSnippet(' \n … -- ', new TermMatcher(['alpha']))).to.deep.equal({ text: '', highlights: [] });
  });

  it('finds and highlights words past the first few thousand of a long text, then a short one after it (the word list is reused)', () => {
    const long = `${'filler '.repeat(12_000)}the lighthouse keeper ${'tail '.repeat(50)}`;
    const matcher = new TermMatcher(['lighthous']);
    const cut = buildSnippet(long, matcher);
    expect(highlighted(cut)).to.deep.equal(['lighthouse']);
    expect(cut.text.startsWith('… filler')).to.equal(true);
    expect(highlightWords(long, matcher)).to.deep.equal([[long.indexOf('lighthouse'), long.indexOf('lighthouse') + 'lighthouse'.length]]);
    const short = buildSnippet('A lighthouse.', matcher);
    expect(short).to.deep.equal({ text: 'A lighthouse.', highlights: [[2, 12]] });
  });

  it('over SciFact abstracts: every highlight is a query word, every passage within its length', () => {
    const docs = readFileSync(sharedPath('datasets', 'scifact', 'corpus.jsonl'), 'utf8').split('\n').slice(0, 300);
    const queries = ['vitamin D deficiency and bone fractures', 'gene expression in tumour cells', 'mice were treated with insulin'];
    let highlights = 0;
    for (const query of queries) {
      const lexemes = [...new Set((query.toLowerCase().match(/\p{L}+/gu) ?? []).map((w) => stem(w)))];
      const matcher = new TermMatcher(lexemes);
      for (const line of docs.filter((l) => l.trim() !== '')) {
        const { text } = JSON.parse(line) as { text: string };
        const s = buildSnippet(text, matcher);
        for (const word of highlighted(s)) expect(lexemes).to.include(stem(word.toLowerCase()));
        highlights += s.highlights.length;
        const passages = s.text.split(' … ');
        expect(passages.length).to.be.at.most(3); // 2 passages, plus the leading/trailing ellipsis marks
        for (const passage of passages) expect(passage.match(/[\p{L}\p{N}]+/gu)?.length ?? 0).to.be.at.most(30);
      }
    }
    expect(highlights).to.be.greaterThan(300);
  });
});

forEachEngine('search repository describe', (engine) => {
  let db: SqlDatabase;
  let close: () => Promise<void>;
  before(async () => {
    ({ db, close } = await openKeywordTestDb(engine));
  });
  after(() => close());

  it("gives the keyword index's lexemes of the query with the files: stemmed, stop words left out, each once", async () => {
    const [id] = await insertFiles(db, [{ path: '/d/t.txt', filename: 't.txt', extension: 'txt', content: 'Tomatoes grow.' }]);
    const repository = createSearchRepository(db);
    const described = await repository.describe([id!], 'Tomatoes are growing, the tomato grows in 2019');
    expect(described.files.map((f) => [f.id, f.content_head])).to.deep.equal([[id, 'Tomatoes grow.']]);
    expect([...described.lexemes].sort()).to.deep.equal(['2019', 'grow', 'tomato']);
    expect((await repository.describe([id!], 'the and of')).lexemes).to.deep.equal([]);
    expect(await repository.describe([], 'tomato')).to.deep.equal({ files: [], lexemes: [] });
  });

  it("agrees with the database's stemmer on the SciFact vocabulary, so highlights are the words BM25 counted", async () => {
    const words = scifactVocabulary(600_000);
    const { rows } = await db.query<{ word: string; lexeme: string | null }>(
      `SELECT w AS word, (ts_lexize('english_stem', w))[1] AS lexeme FROM unnest($1::text[]) AS w`,
      [words],
    );
    const stemmed = rows.filter((r) => r.lexeme !== null);
    expect(stemmed.length).to.be.greaterThan(5000);
    const disagree = stemmed.filter((r) => new TermMatcher([r.lexeme!]).match(r.word) !== 0).map((r) => `${r.word}→${r.lexeme}`);
    // Snowball's English stemmer gained a few special cases after Porter2 (adding → add); at most 1 in 1000.
    expect(disagree.length, disagree.join(', ')).to.be.at.most(stemmed.length / 1000);
  });
});
