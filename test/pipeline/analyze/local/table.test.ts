import { expect } from 'chai';
import { describeTable, detectTable, splitRow, tableBlocks } from '../../../../src/pipeline/analyze/local/table.js';

describe('detectTable', () => {
  it('detects CSV with a header and quoted cells', () => {
    const shape = detectTable('name,notes,score\n"Smith, J","said ""hi""",3\nLee,none,5\n');
    expect(shape).to.deep.include({ delimiter: ',', header: ['name', 'notes', 'score'], columns: 3, rows: 2 });
    expect(shape?.cells[1]).to.deep.equal(['Smith, J', 'said "hi"', '3']);
  });

  it('detects TSV and headerless numeric tables', () => {
    expect(detectTable('1\t2\t3\n4\t5\t6\n7\t8\t9')).to.deep.include({ delimiter: '\t', header: [], columns: 3, rows: 3 });
  });

  it('does not mistake prose with commas for a table', () => {
    const prose = 'Hello, world.\nThis line has no comma at all\nThis one, however, has two.\nAnd this, one.';
    expect(detectTable(prose)).to.equal(undefined);
  });

  it('accepts a two-line table only when forced by the extension', () => {
    expect(detectTable('a,b\n1,2')).to.equal(undefined);
    expect(detectTable('a,b\n1,2', true)).to.deep.include({ header: ['a', 'b'], rows: 1 });
  });
});

describe('splitRow', () => {
  it('splits on the delimiter outside quotes, and trims pipe borders', () => {
    expect(splitRow('a;"b;c";d', ';')).to.deep.equal(['a', 'b;c', 'd']);
    expect(splitRow('| x | y |', '|')).to.deep.equal(['x', 'y']);
  });
});

describe('describeTable', () => {
  it('names the shape and the columns within the budget', () => {
    const shape = detectTable('alpha,beta,gamma,delta\n1,2,3,4\n5,6,7,8', true);
    expect(shape && describeTable(shape, 400)).to.equal('Table of 2 rows and 4 columns: alpha, beta, gamma, delta.');
    const short = shape && describeTable(shape, 50);
    expect(short).to.equal('Table of 2 rows and 4 columns: alpha, … (3 more).');
  });
});

describe('tableBlocks', () => {
  it('puts the header first as a heading, then one block per row', () => {
    const shape = detectTable('k,v\na,1\nb,2', true);
    expect(shape && tableBlocks(shape)).to.deep.equal([
      { kind: 'heading', text: 'k | v', level: 0 },
      { kind: 'table', text: 'a | 1' },
      { kind: 'table', text: 'b | 2' },
    ]);
  });
});
