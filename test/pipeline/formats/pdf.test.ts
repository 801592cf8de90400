import { expect } from 'chai';
import { pdfDate } from '../../../src/pipeline/formats/pdf.js';

describe('pdfDate', () => {
  it('converts PDF date strings to ISO 8601', () => {
    expect(pdfDate("D:20090102030405+01'00'")).to.equal('2009-01-02T02:04:05.000Z');
    expect(pdfDate('D:20090102030405Z')).to.equal('2009-01-02T03:04:05.000Z');
    expect(pdfDate('D:2009')).to.equal('2009-01-01T00:00:00.000Z');
    expect(pdfDate('yesterday')).to.equal(undefined);
    expect(pdfDate(undefined)).to.equal(undefined);
  });
});
