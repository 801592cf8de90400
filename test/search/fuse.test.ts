import { expect } from 'chai';
import { fuseHybrid, rankKeyword, rankSemantic, strongCosine, type FusionProfile } from '../../src/search/fuse.js';
import { seededRandom } from '../../scripts/lib/seeded-random.js';

const profile: FusionProfile = { semanticWeight: 0.3, keywordWeight: 0.7, matchBonus: 0.3, floor: 0.25 };

describe('fuseHybrid', () => {
  it('never lets a file without a query word pass a file with one on a middling cosine (the "zanzibar" case)', () => {
    // Two notes hold the rare word; the semantic side also returns unrelated pages at cosines 0.5 and 0.45.
    const fused = fuseHybrid({ keyword: [[1, 5], [2, 0.3]], semantic: [[3, 0.5], [4, 0.45], [1, 0.2], [2, 0.1]] }, profile);
    expect(fused.map((h) => h.id)).to.deep.equal([1, 2, 3, 4]);
    expect(strongCosine(profile)).to.be.closeTo(0.775, 1e-12);
  });

  it('lets a strongly similar file without a query word pass a weak keyword match', () => {
    const fused = fuseHybrid({ keyword: [[1, 5], [2, 0.3]], semantic: [[3, 0.9], [1, 0.2], [2, 0.1]] }, profile);
    expect(fused.map((h) => h.id)).to.deep.equal([1, 3, 2]);
  });

  it('leaves out files without a query word below the floor, keeps keyword matches whatever their cosine', () => {
    const fused = fuseHybrid({ keyword: [[1, 2]], semantic: [[2, 0.3], [3, 0.2], [1, 0.1]] }, profile);
    expect(fused.map((h) => h.id)).to.deep.equal([1, 2]);
    expect(fused[0]).to.deep.include({ semanticPart: 0, semantic: 0.1, keyword: 2 });
  });

  it('scores semanticPart + keywordPart, each as the formula says, falling along the order', () => {
    const fused = fuseHybrid({ keyword: [[1, 8], [2, 2]], semantic: [[1, 0.65], [2, 0.85]] }, profile);
    const by = new Map(fused.map((h) => [h.id, h]));
    expect(by.get(1)!.keywordPart).to.be.closeTo(0.7 * (0.3 + 0.7 * 1), 1e-12);
    expect(by.get(2)!.keywordPart).to.be.closeTo(0.7 * (0.3 + 0.7 * 0.25), 1e-12);
    expect(by.get(1)!.semanticPart).to.be.closeTo((0.3 * 0.4) / 0.75, 1e-12);
    expect(by.get(2)!.semanticPart).to.be.closeTo((0.3 * 0.6) / 0.75, 1e-12);
    for (const h of fused) expect(h.score).to.be.closeTo(h.semanticPart + h.keywordPart, 1e-12);
    for (let i = 1; i < fused.length; i++) expect(fused[i - 1]!.score).to.be.at.least(fused[i]!.score);
  });

  it('gives a keyword hit the semantic side did not return the cosine it is known to lie below', () => {
    const fused = fuseHybrid({ keyword: [[1, 1], [2, 1]], semantic: [[1, 0.55]], semanticMissing: 0.4 }, profile);
    expect(fused.find((h) => h.id === 2)).to.deep.include({ semantic: null });
    expect(fused.find((h) => h.id === 2)!.semanticPart).to.be.closeTo((0.3 * 0.15) / 0.75, 1e-12);
  });

  it('puts exact-name tiers first (a name match without a query word in the text too), scores still falling', () => {
    const fused = fuseHybrid({ keyword: [[1, 30], [3, 1]], semantic: [[1, 0.9], [2, 0.1]], tiers: new Map([[3, 1], [2, 2]]) }, profile);
    expect(fused.map((h) => h.id)).to.deep.equal([2, 3, 1]);
    for (let i = 1; i < fused.length; i++) expect(fused[i - 1]!.score).to.be.greaterThan(fused[i]!.score);
  });

  it('holds the guarantee on random lists: below the strong cosine, every keyword match ranks first', () => {
    const random = seededRandom(15);
    for (let round = 0; round < 200; round++) {
      const p: FusionProfile = { semanticWeight: random(), keywordWeight: random(), matchBonus: random(), floor: random() * 0.6 - 0.1 };
      const keyword: [number, number][] = [];
      const semantic: [number, number][] = [];
      for (let id = 0; id < 30; id++) {
        if (random() < 0.5) keyword.push([id, random() * 10]);
        if (random() < 0.7) semantic.push([id, random() * 1.2 - 0.2]);
      }
      const fused = fuseHybrid({ keyword, semantic }, p);
      const matched = new Set(keyword.map(([id]) => id));
      const strong = strongCosine(p);
      const lastMatch = fused.map((h) => matched.has(h.id)).lastIndexOf(true);
      fused.forEach((h, rank) => {
        if (!matched.has(h.id) && rank < lastMatch) expect(h.semantic!).to.be.at.least(strong - 1e-9);
        if (!matched.has(h.id)) expect(h.semantic!).to.be.above(p.floor);
      });
    }
  });

  it('says when a file without a query word can never pass one with a query word', () => {
    expect(strongCosine({ ...profile, matchBonus: 0.9 })).to.be.above(1);
    expect(strongCosine({ ...profile, semanticWeight: 0 })).to.equal(Infinity);
  });
});

describe('rankKeyword and rankSemantic', () => {
  it('ranks by BM25 over the best (names first), or by the cosine itself', () => {
    const kw = rankKeyword([[1, 2], [2, 8]], new Map([[3, 2]]));
    expect(kw.map((h) => [h.id, h.tier])).to.deep.equal([[3, 2], [2, 0], [1, 0]]);
    expect(kw[1]!.score).to.equal(1);
    expect(kw[2]!.score).to.equal(0.25);
    expect(rankSemantic([[5, 0.2], [4, 0.7], [5, 0.3]]).map((h) => [h.id, h.score])).to.deep.equal([[4, 0.7], [5, 0.3]]);
  });

  it('breaks ties by id, and ranks nothing into nothing', () => {
    expect(rankKeyword([[5, 1], [4, 1]]).map((h) => h.id)).to.deep.equal([4, 5]);
    expect(fuseHybrid({ keyword: [], semantic: [] }, profile)).to.deep.equal([]);
  });
});
