import { expect } from 'chai';
import path from 'node:path';
import { builtinHolders, heldBuiltinBytes, holdBuiltin } from '../../../src/pipeline/embedders/builtin-memory.js';
import { defaultBuiltinDir } from '../../../src/pipeline/embedders/index.js';
import { probeThreadMemory } from '../../../src/lib/thread-memory.js';

describe('holdBuiltin (the built-in embedder memory, one copy per process)', () => {
  const dir = defaultBuiltinDir();
  const key = path.resolve(dir);

  afterEach(() => expect(builtinHolders()).to.not.have.property(key)); // every test lets go of what it held

  it('reads each part on first demand, gives every holder the same shared memory, and drops it with the last holder', () => {
    const a = holdBuiltin(dir);
    const b = holdBuiltin(dir);
    expect(builtinHolders()[key]).to.deep.equal({ holders: 2, words: false, table: false });
    const table = a.table();
    expect(table?.vectors.buffer).to.be.instanceOf(SharedArrayBuffer);
    expect(b.table()).to.equal(table);
    expect(b.words()?.index.codes.buffer).to.equal(a.words()?.index.codes.buffer);
    expect(builtinHolders()[key]).to.deep.equal({ holders: 2, words: true, table: true });
    expect(heldBuiltinBytes()).to.be.above(34_148_000 + 1_365_920); // the table, and the vocabulary's index
    a.release();
    a.release(); // a second release of the same hold changes nothing
    expect(builtinHolders()[key]?.holders).to.equal(1);
    b.release();
    const c = holdBuiltin(dir);
    expect(c.table()).to.not.equal(table); // read again: the old copy was let go
    c.release();
  });

  it('answers null for a part it cannot read (each thread then reads it itself and says why)', () => {
    const hold = holdBuiltin('/nonexistent/builtin');
    expect([hold.words(), hold.table()]).to.deep.equal([null, null]);
    hold.release();
    expect(builtinHolders()).to.not.have.property('/nonexistent/builtin');
  });

  it('is counted once in the memory probes, as role shared', async () => {
    const hold = holdBuiltin(dir);
    try {
      hold.table();
      const shared = (await probeThreadMemory(50)).filter((t) => t.role === 'shared');
      expect(shared).to.have.length(1);
      expect(shared[0]!.external).to.equal(heldBuiltinBytes());
    } finally {
      hold.release();
    }
    expect((await probeThreadMemory(50)).some((t) => t.role === 'shared')).to.equal(false);
  });
});
