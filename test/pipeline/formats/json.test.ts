import { expect } from 'chai';
import { extractJson, parseJsonValues } from '../../../src/pipeline/formats/json.js';

describe('parseJsonValues', () => {
  it('reads one document, JSON Lines and concatenated documents', () => {
    expect(parseJsonValues('{"a":1}')).to.deep.equal([{ a: 1 }]);
    expect(parseJsonValues('{"a":1}\n{"a":2}\n')).to.deep.equal([{ a: 1 }, { a: 2 }]);
    expect(parseJsonValues('{"a":"}{"}{"b":[1,{"c":"]"}]}')).to.deep.equal([{ a: '}{' }, { b: [1, { c: ']' }] }]);
    expect(parseJsonValues('1\n2')).to.deep.equal([1, 2]);
  });

  it('returns undefined for text that is not JSON', () => {
    expect(parseJsonValues('{"a": 1')).to.equal(undefined);
    expect(parseJsonValues('hello world')).to.equal(undefined);
  });
});

describe('extractJson', () => {
  it('writes scalar leaves as "key: value" lines', async () => {
    const result = await extractJson({ bytes: Buffer.from('{"name":"Ada","tags":["x","y"],"nested":{"n":3,"ok":true,"nil":null}}'), extension: 'json', maxTextChars: 1000 });
    expect(result.ok && result.text).to.equal('name: Ada\ntags: x\ntags: y\nn: 3\nok: true');
  });

  it('indexes invalid JSON as plain text with a note', async () => {
    const result = await extractJson({ bytes: Buffer.from('{"broken": '), extension: 'json', maxTextChars: 1000 });
    expect(result.ok && result.note).to.equal('not valid JSON; indexed as plain text');
    expect(result.ok && result.text).to.equal('{"broken":');
  });
});
