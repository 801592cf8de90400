import { expect } from 'chai';
import { fuseScores, type FusionOptions } from '../../src/search/fuse.js';

const options = (overrides: Partial<{ sem: Partial<FusionOptions['semantic']>; kw: Partial<FusionOptions['keyword']> }> = {}): FusionOptions => ({
  semantic: { weight: 0.25, normalization: 'none', missing: 'zero', ...overrides.sem },
  keyword: { weight: 1, normalization: 'max', missing: 'zero', ...overrides.kw },
});

describe('fuseScores', () => {
  it('sums weighted, normalised sides', () => {
    const fused = fuseScores([[1, 0.8], [2, 0.4]], [[1, 10], [2, 20]], options());
    // 1: 0.25·0.8 + 1·0.5 = 0.7; 2: 0.25·0.4 + 1·1 = 1.1
    expect(fused.map((h) => h.id)).to.deep.equal([2, 1]);
    expect(fused[0]!.score).to.be.closeTo(1.1, 1e-12);
    expect(fused[1]!.score).to.be.closeTo(0.7, 1e-12);
    expect(fused[0]).to.include({ semantic: 0.4, keyword: 20, tier: 0 });
  });

  it('lets a file found by one side only take zero for the other side', () => {
    const fused = fuseScores([[1, 0.9]], [[2, 5]], options());
    expect(fused.find((h) => h.id === 1)).to.deep.include({ score: 0.25 * 0.9, keyword: null });
    expect(fused.find((h) => h.id === 2)).to.deep.include({ score: 1, semantic: null });
  });

  it("with missing 'floor', gives the side's lowest normalised score instead", () => {
    const fused = fuseScores([[1, 0.9], [3, 0.3]], [[2, 5]], options({ sem: { missing: 'floor' } }));
    expect(fused.find((h) => h.id === 2)!.score).to.be.closeTo(0.25 * 0.3 + 1, 1e-12);
  });

  it('keeps the best score of an id listed twice (one row per chunk)', () => {
    const fused = fuseScores([[1, 0.2], [1, 0.6]], [], options({ sem: { weight: 1 } }));
    expect(fused).to.have.length(1);
    expect(fused[0]!.score).to.be.closeTo(0.6, 1e-12);
    expect(fused[0]!.semantic).to.equal(0.6);
  });

  it('puts exact-name tiers first, with scores still falling along the order', () => {
    const fused = fuseScores([[1, 0.9], [2, 0.1]], [[1, 30], [3, 1], [2, 0.5]], options(), new Map([[3, 1], [2, 2]]));
    expect(fused.map((h) => h.id)).to.deep.equal([2, 3, 1]);
    for (let i = 1; i < fused.length; i++) expect(fused[i - 1]!.score).to.be.greaterThan(fused[i]!.score);
  });

  it('breaks score ties by id, and fuses two empty lists into nothing', () => {
    expect(fuseScores([], [[5, 1], [4, 1]], options()).map((h) => h.id)).to.deep.equal([4, 5]);
    expect(fuseScores([], [], options())).to.deep.equal([]);
  });
});
