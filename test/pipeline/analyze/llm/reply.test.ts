import { expect } from 'chai';
import { parseModelReply } from '../../../../src/pipeline/analyze/llm/reply.js';

describe('parseModelReply', () => {
  it('accepts the JSON asked for and tidies it', () => {
    const outcome = parseModelReply(
      JSON.stringify({ title: '  Tide  tables ', summary: 'When the\nsea rises.', keywords: [' tides ', 'Tides', 'moon', '', '"lunar cycle".'], extra: 1 }),
    );
    expect(outcome).to.deep.equal({
      ok: true,
      reply: { title: 'Tide tables', summary: 'When the sea rises.', keywords: ['tides', 'moon', 'lunar cycle'] },
    });
  });

  it('accepts JSON wrapped in a Markdown fence and keywords given as one string', () => {
    const outcome = parseModelReply('```json\n{"title": "T", "summary": "S.", "keywords": "alpha, beta; gamma"}\n```');
    expect(outcome).to.deep.equal({ ok: true, reply: { title: 'T', summary: 'S.', keywords: ['alpha', 'beta', 'gamma'] } });
  });

  it('keeps at most ten keywords and bounds the lengths', () => {
    const outcome = parseModelReply(
      JSON.stringify({ title: 'x'.repeat(500), summary: 'word '.repeat(300), keywords: Array.from({ length: 15 }, (_, i) => `k${i}`) }),
    );
    expect(outcome.ok).to.equal(true);
    if (!outcome.ok) return;
    expect(outcome.reply.keywords).to.have.length(10);
    expect(outcome.reply.title.length).to.be.at.most(300);
    expect(outcome.reply.summary.length).to.be.at.most(600);
  });

  it('rejects what is not the JSON asked for, saying what is wrong', () => {
    expect(parseModelReply('The file is about tides.')).to.deep.equal({
      ok: false,
      reason: 'model reply was not JSON: The file is about tides.',
    });
    const missing = parseModelReply('{"title": "T", "summary": "S"}');
    expect(missing.ok).to.equal(false);
    expect(!missing.ok && missing.reason).to.match(/^model reply is not \{title, summary, keywords\}: .*keywords/);
    const wrongType = parseModelReply('{"title": 5, "summary": "S", "keywords": []}');
    expect(!wrongType.ok && wrongType.reason).to.match(/\/title/);
    expect(parseModelReply('[1, 2]').ok).to.equal(false);
    expect(parseModelReply('{"title": "  ", "summary": "S", "keywords": ["a"]}')).to.deep.equal({
      ok: false,
      reason: 'model reply has an empty title',
    });
    expect(parseModelReply('{"title": "T", "summary": "S", "keywords": ["", " "]}')).to.deep.equal({
      ok: false,
      reason: 'model reply has no keywords',
    });
  });
});
