import { expect } from 'chai';
import { firstHeading, meaningfulMetadataTitle, titleFromFilename } from '../../../../src/pipeline/analyze/local/title.js';

describe('meaningfulMetadataTitle', () => {
  it('accepts a real title, tidying its whitespace', () => {
    expect(meaningfulMetadataTitle('  Annual\n Report   2024 ', 'x.pdf')).to.equal('Annual Report 2024');
    expect(meaningfulMetadataTitle('Excel: a guide to pivot tables', 'x.pdf')).to.equal('Excel: a guide to pivot tables');
  });

  it('rejects what office tools and converters put there', () => {
    const junk = [
      undefined,
      '',
      '   ',
      'Microsoft Word - quarterly.doc',
      'Microsoft PowerPoint - deck',
      'untitled',
      'Untitled document',
      'Document1',
      'Slide 1',
      'PowerPoint Presentation',
      'report.docx',
      'C:\\Users\\me\\report',
      '12345',
      '---',
      'Title',
      'x',
      'Quarterly',
    ];
    for (const title of junk) expect(meaningfulMetadataTitle(title, 'quarterly.docx'), String(title)).to.equal(undefined);
  });

  it('bounds a very long title', () => {
    expect(meaningfulMetadataTitle('word '.repeat(200), 'a.pdf')?.length).to.be.at.most(300);
  });
});

describe('firstHeading', () => {
  it('takes a leading heading of any kind, else the first level-1 heading', () => {
    expect(firstHeading([{ kind: 'heading', text: 'Lead', level: 0 }, { kind: 'heading', text: 'Other', level: 1 }])).to.equal('Lead');
    expect(firstHeading([{ kind: 'paragraph', text: 'badges' }, { kind: 'heading', text: 'Project **Name**', level: 1 }])).to.equal(
      'Project Name',
    );
    expect(firstHeading([{ kind: 'paragraph', text: 'intro' }, { kind: 'heading', text: 'Section', level: 2 }])).to.equal(undefined);
    expect(firstHeading([{ kind: 'heading', text: '2024:', level: 1 }])).to.equal(undefined);
  });
});

describe('titleFromFilename', () => {
  it('drops the extension and turns separators and camelCase into spaces', () => {
    expect(titleFromFilename('quarterly_report-2024.final.pdf')).to.equal('quarterly report 2024 final');
    expect(titleFromFilename('myNotes.txt')).to.equal('my Notes');
    expect(titleFromFilename('README')).to.equal('README');
    expect(titleFromFilename('.bashrc')).to.equal('bashrc');
    expect(titleFromFilename('___.txt')).to.equal('___.txt');
  });
});
