import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { builtinHolders, holdBuiltin } from '../../src/pipeline/embedders/builtin-memory.js';
import { defaultBuiltinDir } from '../../src/pipeline/embedders/index.js';
import { StaticTokenizer } from '../../src/pipeline/embedders/static.js';
import { QueryEmbedder } from '../../src/models/query-embedder.js';
import { SMALL_BERT, writeBertModelDir } from '../helpers/bert-graph.js';
import { sharedPath } from '../helpers/shared.js';

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

describe('QueryEmbedder', () => {
  it('embeds queries with the built-in model on its own thread, as unit vectors', async () => {
    const embedder = await QueryEmbedder.start({ modelDir: null, builtinDir: defaultBuiltinDir() });
    try {
      expect(embedder.info).to.include({ kind: 'static', dimension: 100 });
      expect(embedder.identity).to.match(/^static:/);
      const cat = await embedder.embed('cats and kittens');
      const kitten = await embedder.embed('a kitten is a young cat');
      const tax = await embedder.embed('corporate tax law reform');
      expect(cat).to.have.length(100);
      expect(Math.abs(cosine(cat, cat) - 1)).to.be.below(1e-4);
      expect(cosine(cat, kitten)).to.be.greaterThan(cosine(cat, tax));
      expect(await embedder.embed('  cats and kittens ')).to.equal(cat); // cached, same object
    } finally {
      await embedder.close();
    }
  });

  it("embeds with the process's one table and vocabulary index (the pipeline threads' copies), held while it runs", async () => {
    const key = path.resolve(defaultBuiltinDir());
    const pool = holdBuiltin(defaultBuiltinDir()); // as the pipeline pool holds them
    const [id] = StaticTokenizer.fromVocabFile(path.join(defaultBuiltinDir(), 'vocab.txt')).ids('lighthouse');
    const embedder = await QueryEmbedder.start({ modelDir: null, builtinDir: defaultBuiltinDir() });
    try {
      expect(builtinHolders()[key]).to.deep.equal({ holders: 2, words: true, table: true });
      expect(await embedder.embed('lighthouse')).to.have.length(100);
      const weights = pool.table()!.weights;
      const weight = weights[id!]!;
      weights[id!] = 0; // the lane's thread computes from this very memory
      try {
        expect(Array.from(await embedder.embed('lighthouse lighthouse')).every((x) => x === 0)).to.equal(true); // not the cached query
      } finally {
        weights[id!] = weight;
      }
    } finally {
      await embedder.close();
    }
    expect(builtinHolders()[key]?.holders).to.equal(1);
    pool.release();
  });

  it('uses a transformer model folder when one is given', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'filesift-qe-'));
    try {
      await writeBertModelDir(dir, SMALL_BERT, sharedPath('models', 'all-MiniLM-L6-v2-tokenizer', 'vocab.txt'));
      const embedder = await QueryEmbedder.start({ modelDir: dir, builtinDir: defaultBuiltinDir() });
      try {
        expect(embedder.info.kind).to.equal('transformer');
        const v = await embedder.embed('a man is eating food');
        expect(v).to.have.length(embedder.info.dimension);
        expect(Math.abs(cosine(v, v) - 1)).to.be.below(1e-4);
      } finally {
        await embedder.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails to start with a clear reason when no model can be loaded', async () => {
    try {
      await QueryEmbedder.start({ modelDir: null, builtinDir: '/nonexistent/builtin' });
      expect.fail('expected a rejection');
    } catch (err) {
      expect((err as Error).message).to.match(/built-in embedder is not built/);
    }
  });
});
