import { expect } from 'chai';
import { cutWidePageTreeNodes } from '../../../src/pipeline/formats/pdf-page-tree.js';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));
const text = (data: Uint8Array) => Buffer.from(data).toString('latin1');

describe('cutWidePageTreeNodes', () => {
  it('blanks the entries past the limit of a wide /Kids array, keeping every byte offset', () => {
    const pdf = '1 0 obj\n<< /Type /Pages /Count 5 /Kids [3 0 R 4 0 R\n5 0 R 6 0 R 7 0 R] >>\nendobj\n';
    const data = bytes(pdf);
    expect(cutWidePageTreeNodes(data, 2)).to.equal(5);
    expect(text(data)).to.equal(`1 0 obj\n<< /Type /Pages /Count 5 /Kids [3 0 R 4 0 R${' '.repeat(18)}] >>\nendobj\n`);
    expect(data.length).to.equal(pdf.length);
  });

  it('leaves arrays within the limit, and anything that is not a plain array of references, untouched', () => {
    const pdf = '<< /Kids [3 0 R 4 0 R] >> << /Kids 9 0 R >> << /Kids [3 0 R /Oops 4 0 R 5 0 R] >> (/Kids [1 0 R 2 0 R 3 0 R';
    const data = bytes(pdf);
    expect(cutWidePageTreeNodes(data, 2)).to.equal(0);
    expect(text(data)).to.equal(pdf);
  });

  it('cuts every wide node and reports the widest', () => {
    const data = bytes('/Kids [1 0 R 2 0 R 3 0 R] /Kids[4 0 R 5 0 R 6 0 R 7 0 R]');
    expect(cutWidePageTreeNodes(data, 1)).to.equal(4);
    expect(text(data)).to.equal(`/Kids [1 0 R${' '.repeat(12)}] /Kids[4 0 R${' '.repeat(18)}]`);
  });
});
