import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { analyzeLocally } from '../../../../src/pipeline/analyze/local/index.js';
import { extractDocument } from '../../../../src/pipeline/formats/index.js';
import { writeZip } from '../../../helpers/zip-writer.js';
import { sharedPath } from '../../../helpers/shared.js';
import { docFrom, flat, scifact } from '../helpers.js';

const OPTIONS = { maxInputChars: 100_000 };
/** Common English function words: none may ever be a keyword. */
const STOP_WORDS = new Set(
  'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its may might more most no not of on or our she should so such than that the their them then there these they this those to was we were what when where which while who will with would you your also however here'.split(
    ' ',
  ),
);

/** Summary pieces (split at sentence ends) must be text of the body, in the body's order. */
function expectExtractiveInOrder(summary: string, body: string): void {
  const text = flat(body);
  let from = 0;
  for (const piece of summary.split(/(?<=[.!?])\s+(?=[\p{Lu}\d(])/u)) {
    const at = text.indexOf(piece, from);
    expect(at, `"${piece}" should appear in the text after position ${from}`).to.be.at.least(0);
    from = at + piece.length;
  }
}

describe('analyzeLocally', () => {
  context('on SciFact abstracts', () => {
    const ids = readdirSync(sharedPath('datasets', 'scifact', 'files'))
      .sort()
      .slice(0, 25)
      .map((name) => name.replace(/\.txt$/, ''));

    it('takes the title line as the title, and summarises the abstract with its own sentences, in order', () => {
      for (const id of ids) {
        const { doc, titleLine, body } = scifact(id);
        const analysis = analyzeLocally(doc, OPTIONS);
        expect(analysis.title, id).to.equal(titleLine);
        expect(analysis.summary.length, id).to.be.within(1, 400);
        expect(flat(analysis.summary)).not.to.include(titleLine);
        expectExtractiveInOrder(analysis.summary, body);
      }
    });

    it('gives 5–10 keywords from the text, without stop words, all distinct', () => {
      for (const id of ids) {
        const { doc } = scifact(id);
        const { keywords } = analyzeLocally(doc, OPTIONS);
        expect(keywords.length, id).to.be.within(5, 10);
        expect(new Set(keywords.map((keyword) => keyword.toLowerCase())).size).to.equal(keywords.length);
        for (const keyword of keywords) {
          expect(STOP_WORDS.has(keyword.toLowerCase()), `${id}: ${keyword}`).to.equal(false);
          expect(doc.text.toLowerCase(), id).to.include(keyword.toLowerCase());
        }
      }
    });

    it('finds the domain vocabulary of a known abstract', () => {
      const { keywords } = analyzeLocally(scifact('10009203').doc, OPTIONS);
      expect(keywords).to.include.members(['dendritic', 'presynaptic', 'arbor', 'synaptic']);
      expect(keywords.slice(0, 5)).to.include('presynaptic');
    });

    it('is deterministic', () => {
      const { doc } = scifact('10015292');
      expect(analyzeLocally(doc, OPTIONS)).to.deep.equal(analyzeLocally({ ...doc }, OPTIONS));
    });
  });

  context('titles', () => {
    it('prefers a meaningful metadata title', () => {
      const doc = docFrom('report.docx', '# Draft heading\n\nBody text about glaciers.', {
        metadata: { title: '  Glacier   Retreat in the Alps ' },
      });
      expect(analyzeLocally(doc, OPTIONS).title).to.equal('Glacier Retreat in the Alps');
    });

    it('ignores junk metadata titles and uses the first heading', () => {
      for (const junk of ['Microsoft Word - report.doc', 'untitled', '   ', 'Slide 1', 'report.docx', 'Document1']) {
        const doc = docFrom('report.docx', 'Glacier Retreat\n\nGlaciers in the Alps lost a tenth of their ice.', {
          metadata: { title: junk },
        });
        expect(analyzeLocally(doc, OPTIONS).title, junk).to.equal('Glacier Retreat');
      }
    });

    it('falls back to the humanised file name', () => {
      const doc = docFrom('quarterly_sales-report_2024.txt', 'revenue grew in every region during the quarter, led by exports.');
      expect(analyzeLocally(doc, OPTIONS).title).to.equal('quarterly sales report 2024');
    });

    it("weighs the author's metadata keywords and subject like a heading", () => {
      const text = 'Ice cores record past climate. Bubbles in glacial ice trap ancient air. Drilling teams also log weather, food supplies and camp logistics every day.';
      const plain = analyzeLocally(docFrom('cores.txt', text), OPTIONS).keywords;
      const tagged = analyzeLocally(docFrom('cores.txt', text, { metadata: { keywords: ['weather', 'climate'], subject: 'Ice cores' } }), OPTIONS).keywords;
      expect(plain.indexOf('weather')).to.be.above(5);
      expect(tagged.indexOf('weather')).to.be.within(0, 4);
      expect(tagged.indexOf('climate')).to.be.below(plain.indexOf('climate'));
    });

    it('uses the Subject of a mail saved as text', () => {
      const text = 'From: ada@example.org\nTo: team@example.org\nSubject: Re: Launch window for the probe\nDate: Mon, 3 Mar 2025 10:00:00 +0000\n\nThe launch window opens on 12 May and closes on 30 May.';
      const analysis = analyzeLocally(docFrom('message.txt', text), OPTIONS);
      expect(analysis.title).to.equal('Launch window for the probe');
      expect(analysis.summary).to.equal('The launch window opens on 12 May and closes on 30 May.');
    });
  });

  context('markdown', () => {
    const markdown = [
      '---',
      '# Sourdough Starter Guide',
      '',
      'A sourdough starter is a culture of wild yeast and lactic acid bacteria.',
      'Feed the starter with equal weights of flour and water every day.',
      '',
      '## Feeding',
      '',
      '- Discard half of the starter before each feeding.',
      '- Keep the starter at 24 °C so the yeast stays active.',
      '',
      '```bash',
      'echo "not prose"',
      '```',
      '',
      'A **healthy** starter doubles within six hours of feeding; a sluggish starter needs warmer water and rye flour.',
    ].join('\n');

    it('titles by the first heading and summarises prose only', () => {
      const analysis = analyzeLocally(docFrom('starter.md', markdown), OPTIONS);
      expect(analysis.title).to.equal('Sourdough Starter Guide');
      expect(analysis.summary).not.to.match(/Feeding A|echo|\*\*|#/);
      expect(analysis.summary.length).to.be.within(1, 400);
      expect(analysis.keywords).to.include.members(['starter', 'sourdough']);
    });
  });

  context('source code', () => {
    const typescript = [
      '// Copyright 2025 Example Corp. Licensed under the Apache License, Version 2.0.',
      "import { readFile } from 'node:fs/promises';",
      '',
      '/**',
      ' * Parses invoice files and computes the total amount due, including tax.',
      ' * @param path where the invoice lives',
      ' */',
      'export async function parseInvoiceTotal(path: string): Promise<number> {',
      "  const invoiceLines = (await readFile(path, 'utf8')).split('\\n');",
      '  return invoiceLines.map(parseInvoiceLine).reduce((sum, line) => sum + line.amount * (1 + line.taxRate), 0);',
      '}',
      '',
      '// Each invoice line is "description;amount;taxRate".',
      'function parseInvoiceLine(line: string): { amount: number; taxRate: number } {',
      "  const [, amount, taxRate] = line.split(';');",
      '  return { amount: Number(amount), taxRate: Number(taxRate) };',
      '}',
    ].join('\n');

    it('summarises by the leading doc comment, skipping the licence header', () => {
      const analysis = analyzeLocally(docFrom('invoiceTotals.ts', typescript), OPTIONS);
      expect(analysis.summary).to.equal('Parses invoice files and computes the total amount due, including tax.');
      expect(analysis.title).to.equal('invoice Totals');
    });

    it('keywords come from identifiers, split into words, without language keywords', () => {
      const { keywords } = analyzeLocally(docFrom('invoiceTotals.ts', typescript), OPTIONS);
      expect(keywords[0]).to.equal('invoice');
      expect(keywords).to.include.members(['tax', 'rate']);
      for (const reserved of ['const', 'function', 'return', 'export', 'async', 'string', 'number', 'import']) {
        expect(keywords).not.to.include(reserved);
      }
    });

    it('reads a Python module docstring', () => {
      const python = '#!/usr/bin/env python3\n"""Resize photographs to thumbnails for the gallery page."""\nimport sys\n\ndef make_thumbnail(photo):\n    return photo.resize((128, 128))\n';
      expect(analyzeLocally(docFrom('thumbs.py', python), OPTIONS).summary).to.equal(
        'Resize photographs to thumbnails for the gallery page.',
      );
    });

    it('falls back to the first lines of code when there is no comment', () => {
      const go = 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hello")\n}\n';
      expect(analyzeLocally(docFrom('main.go', go), OPTIONS).summary).to.equal('func main() { fmt.Println("hello")');
    });
  });

  context('tables', () => {
    const csv = 'city,country,population\nReykjavik,Iceland,139875\n"Nuuk, Sermersooq",Greenland,19872\nTórshavn,Faroe Islands,14030\n';

    it('describes shape and columns instead of quoting rows', () => {
      const analysis = analyzeLocally(docFrom('north_atlantic_cities.csv', csv), OPTIONS);
      expect(analysis.title).to.equal('north atlantic cities');
      expect(analysis.summary).to.equal('Table of 3 rows and 3 columns: city, country, population.');
      expect(analysis.keywords).to.include.members(['Reykjavik', 'Greenland']);
    });
  });

  context('small and large inputs', () => {
    it("summarises a one-line file as that line, trimmed", () => {
      const analysis = analyzeLocally(docFrom('todo.txt', '   buy oat milk and batteries   \n'), OPTIONS);
      expect(analysis.summary).to.equal('buy oat milk and batteries');
      expect(analysis.title).to.equal('todo');
      expect(analysis.keywords).to.include.members(['oat', 'batteries']);
    });

    it('gives an empty summary and no keywords for empty text', () => {
      expect(analyzeLocally(docFrom('blank.txt', ''), OPTIONS)).to.deep.equal({
        title: 'blank',
        summary: '',
        keywords: [],
        provider: 'local',
      });
      expect(analyzeLocally(docFrom('spaces.txt', ' \n\n\t '), OPTIONS).summary).to.equal('');
    });

    it('reads only the first maxInputChars characters', () => {
      const paragraph = 'Volcanic ash disrupted flights across northern Europe for several days. ';
      const tail = 'Xylophonists from Zanzibar rehearse quietly. '.repeat(300);
      const text = `${paragraph.repeat(2000)}\n\n${tail}`;
      const capped = analyzeLocally(docFrom('ash.txt', text), { maxInputChars: 5000 });
      expect(capped.keywords).to.include('volcanic');
      expect(capped.keywords.join(' ')).not.to.match(/xylophonist|zanzibar/i);
      const whole = analyzeLocally(docFrom('ash.txt', text), { maxInputChars: 1_000_000 });
      expect(whole.keywords.join(' ')).to.match(/xylophonist/i);
    });
  });
  context('on an archive (members under "[path]" lines)', () => {
    async function archiveDoc(filename: string, entries: { name: string; data: Buffer }[]) {
      const result = await extractDocument({ bytes: writeZip(entries), extension: 'zip', maxTextChars: 100_000 });
      if (!result.ok) throw new Error(`not extracted: ${JSON.stringify(result)}`);
      return docFrom(filename, result.text, { format: result.format, mime: result.mime, metadata: result.metadata });
    }
    const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 1]);

    it("is titled by its file name, summarised from its members' sentences, never their paths", async () => {
      const doc = await archiveDoc('field-notes.zip', [
        { name: 'notes/spring.txt', data: Buffer.from('Birds return early in spring. The cormorant colony on the lake grew by a third this year.') },
        { name: 'shopping.txt', data: Buffer.from('Remember the hardware store for nails and glue.') },
        { name: 'img/photo.jpg', data: JPEG },
      ]);
      expect(doc.format).to.equal('zip');
      const analysis = analyzeLocally(doc, OPTIONS);
      expect(analysis.title).to.equal('field notes');
      expect(analysis.summary).to.include('cormorant colony');
      expect(analysis.summary).not.to.match(/\[|\]|spring\.txt|photo/);
      expect(analysis.keywords).to.include('cormorant');
      expect(analysis.keywords).not.to.include.members(['jpg', 'img', 'txt']);
    });

    it('without any text, says what it holds', async () => {
      const doc = await archiveDoc('photos-2019.zip', [
        { name: 'p/1.jpg', data: JPEG },
        { name: 'p/2.jpg', data: JPEG },
      ]);
      const analysis = analyzeLocally(doc, OPTIONS);
      expect(analysis.title).to.equal('photos 2019');
      expect(analysis.summary).to.equal('2 members: p/1.jpg, p/2.jpg');
    });
  });
});
