/**
 * Expected parse outcome for every document in ../shared/datasets/formats. Each phrase was checked against
 * the document itself (its XML parts, raw bytes in the right encoding, or the text a viewer shows), not
 * copied from our own output. `absent` lists text that must NOT be extracted (scripts, field codes, master
 * slide placeholders, comments in XML). `noText` marks documents that truly contain no text (image-only,
 * empty bodies), which must still parse and say so.
 */
import type { ParseFailureCode } from '../../../src/pipeline/types.js';

export type Expectation =
  | { format: string; phrases: string[]; title?: string | null; absent?: string[]; noText?: false }
  | { format: string; noText: true; title?: string | null }
  | { code: ParseFailureCode; reason: RegExp };

export const DATASET_EXPECTATIONS: Record<string, Expectation> = {
  'csv/test-columnar.csv': { format: 'csv', phrases: ['This is row 0 of 10', 'Square of the Record Number'] },
  'csv/testCSV.csv': { format: 'csv', phrases: ['Sample CSV File - Numbers and their Squares', 'Written and saved in Apache OpenOffice.'] },

  'doc/simple_upper_case.doc': { format: 'doc', phrases: ['This is a sample Word document'] },
  'doc/testOptionalHyphen.doc': { format: 'doc', phrases: ['optionalhyphen'] },
  'doc/testWORD6.doc': { format: 'doc', phrases: ['The quick brown fox jumps over the lazy dog'], title: 'The quick brown fox jumps over the lazy dog' },
  'doc/testWORD_closingSmartQInHyperLink.doc': { format: 'doc', phrases: ['TIKA-1512'], absent: ['HYPERLINK'] },
  'doc/testWORD_header_hyperlink.doc': { format: 'doc', phrases: ['ab@example.com', 'http://tw-systemhaus.de'], absent: ['HYPERLINK'] },
  'doc/testWORD_no_format.doc': { format: 'doc', phrases: ['Will generate an exception', 'Administration och övervakning'], absent: ['MERGEFORMAT'] },

  'docx/headerPic.docx': { format: 'docx', noText: true, title: 'СПИСОК ОСНОВНЫХ СЧЕТОВ “НОСТРО” РОСБАНКА' },
  'docx/protected_upper_case.docx': { code: 'encrypted', reason: /DOCX is encrypted \(password required\)/ },
  'docx/testInstrLink.docx': { format: 'docx', phrases: ['Invoice document shared with your Gmail Workspace', 'Access Document(s)'], title: 'Document Shared' },
  'docx/testOCR.docx': { format: 'docx', phrases: ['This is some text.', 'Here is an embedded image:'] },
  'docx/testWORD_bold_character_runs2.docx': { format: 'docx', phrases: ['Foobar'] },
  'docx/testWORD_docSecurity.docx': { format: 'docx', phrases: ['Testing'] },
  'docx/testWORD_embedded_pics.docx': { format: 'docx', phrases: ['This is a paragraph with an image', 'This is a comment', 'This is a footnote', 'This is an endnote'] },
  'docx/testWORD_emptyParaInTextbox.docx': {
    format: 'docx',
    phrases: ['Prehľad vybraných kvantitatívnych údajov'],
    title: 'Komisia Predsedníctva SAV pre posudzovanie vedeckej kvalifikácie pracovníkov',
  },
  'docx/testWORD_override_list_numbering.docx': { format: 'docx', phrases: ['List with restartAt modified and skipped levels'], title: 'Test 1: List with arbitrary text inserted' },
  'docx/test_recursive_embedded.docx': { format: 'docx', phrases: ['embed_0'] },

  'eml/test-incremental-updates.eml': { format: 'email', phrases: ['This is a container email with an embedded pdf with incremental updates.', 'testPDF_incrementalUpdates.pdf'], title: 'test incremental updates' },
  'eml/testEML_embedded_xhtml_and_img.eml': { format: 'email', phrases: ['Using inline content'], title: 'This is the subject' },
  'eml/testEmailWithPNGAtt.eml': { format: 'email', phrases: ['This email has a PNG attachment included in it'], title: 'Test Attachment Email' },
  'eml/testLotusEml.eml': { format: 'email', phrases: ['Message body'], title: null },
  'eml/testRFC822_dkim.eml': { format: 'email', phrases: ['We lost the game. Are you hungry yet?'], title: 'Is dinner ready?', absent: ['DKIM-Signature'] },
  'eml/testThunderbirdEml.eml': { format: 'email', phrases: ['Dear Vladimir'], title: 'JUnit test message' },

  'epub/testEPUB.epub': { format: 'epub', phrases: ['This is the text for chapter One', 'The previous headings were subchapters of course.'], title: 'An ePub for Tika' },
  'epub/testEPUB_multi-metadata-vals.epub': { format: 'epub', phrases: ['By Joseph Conrad and Ford Madox Ford.'], title: 'The Inheritors' },
  'epub/testEPUB_xml_ext.epub': { format: 'epub', phrases: ['It was a bright cold day in April, and the clocks were striking'], title: '1984' },

  'html/resume.html': { format: 'html', phrases: ['Предлагаем Вам ознакомиться со списком зарегистрированных компаний'], absent: ['font-family'] },
  'html/testHTMLNoisyMetaEncoding_1.html': { format: 'html', phrases: ['الاتحاد الجزائري'], absent: ['Cambria Math'] },
  'html/testHTMLNoisyMetaEncoding_2.html': { format: 'html', phrases: ['الاتحاد الجزائري'], absent: ['Cambria Math'] },
  'html/testHTML_embedded_img.html': { format: 'html', phrases: ['some content', 'some other content'], title: 'Title', absent: ['base64'] },
  'html/testHTML_head.html': { format: 'html', noText: true, title: 'Apache Tika' },
  'html/testHTML_metadata_two_titles.html': { format: 'html', phrases: ['All meta information goes in the head section...'], title: 'ActualTitle' },
  'html/testHTML_script_in_body.html': { format: 'html', phrases: ['This is a test.'], absent: ['cool script'] },
  'html/test_ignore_IBM420.html': { format: 'html', phrases: ['Hi, Luis, good morning.', 'Company: XXXXX Brazil'] },

  'json/test-with-unpack.json': { format: 'json', phrases: ['myid-0', '0.xml.json', 'UNPACK'], absent: ['{'] },
  'json/test.json': { format: 'json', phrases: ['myid-0', '0.xml.json'], absent: ['{'] },

  'mbox/single_mail.mbox': { format: 'mbox', phrases: ['bootar o sistema do HD'], absent: ['<html>'] },
  'mbox/testMBOX_lengthy_x-headers.mbox': { format: 'mbox', phrases: ['the quick brown fox jumped over the lazy dog'], title: 'RE: Var simulation' },

  'md/testMARKDOWN.md': { format: 'markdown', phrases: ['Some bold and italic and struck text with inline code.', 'Café naïve résumé'], title: 'Title', absent: ['**', '```'] },
  'md/testMARKDOWN_dataURI.md': { format: 'markdown', phrases: ['Embedded resources'], title: 'Embedded resources', absent: ['R0lGODlh', 'var img'] },

  'msg/testMSG.msg': { format: 'msg', phrases: ["I've been working on making the type detection code more"], title: 'MIME registry use cases' },
  'msg/testMSG_StickyNote.msg': { format: 'msg', phrases: ['This is a note about the quick brown fox'], title: 'This is a note about the quick brown fox' },
  'msg/testMSG_att_doc.msg': { format: 'msg', phrases: ['contenu', 'test-unicode.doc'], title: 'test pièce jointe 1' },

  'odp/LibreOfficeImpress_odp_1.3.odp': { format: 'odp', phrases: ['An example Impress file'], title: 'Beehive' },
  'odp/testODPMacro.odp': { format: 'odp', noText: true },
  'odp/testODP_NPE.odp': { format: 'odp', phrases: ['What does sociology contribute to something as seemingly biological as health?'], title: 'Medicine and Health Care' },

  'ods/test-columnar.ods': { format: 'ods', phrases: ['This is row 0 of 10', 'Square of the Record Number'] },
  'ods/testFooter.ods': { format: 'ods', phrases: ['Here is a footer in the center area', 'Data 1'] },
  'ods/testODSMacro.ods': { format: 'ods', phrases: ['Sheet1'] },

  'odt/LibreOfficeWriter_odt_1.3.odt': { format: 'odt', phrases: ['This is an example document'] },
  'odt/testNPEOpenDocument.odt': { format: 'odt', phrases: ['Práctica de GnuPG'] },
  'odt/testODTEncrypted.odt': { code: 'encrypted', reason: /ODT is encrypted \(password required\)/ },
  'odt/testOpenOffice2.odt': { format: 'odt', phrases: ['This is a sample Open Office document, written in NeoOffice 2.2.1 for the Mac.'] },
  'odt/testPhoneNumberExtractor.odt': { format: 'odt', phrases: ['(949) 666 - 6666', '9498888888'] },
  'odt/testStyles.odt': { format: 'odt', phrases: ['And another test is here.'] },

  'pdf/355bf7-testOverlappingText.pdf': { format: 'pdf', phrases: ['Text the first time', 'Text the second time'] },
  'pdf/testColorRendering.pdf': { format: 'pdf', noText: true },
  'pdf/testFlashInPDF.pdf': { format: 'pdf', noText: true, title: 'Flash Video Test' },
  'pdf/testJournalParser.pdf': { format: 'pdf', phrases: ['Scalability of Controlling Heterogenous Stress-', 'Electrostatic'], title: 'Paper Title (use style: paper title)' },
  'pdf/testOverlappingText.pdf': { format: 'pdf', phrases: ['Text the first time'] },
  'pdf/testPDFPackage.pdf': { format: 'pdf', phrases: ['Multiple files are bound together in this PDF Package.'] },
  'pdf/testPDF_Version.7.x.pdf': { format: 'pdf', noText: true, title: 'Sample Acrobat 7.x (PDF Version 1.6)' },
  'pdf/testPDF_jpeg2000.pdf': { format: 'pdf', noText: true },
  'pdf/testPDF_jsActionOnPage.pdf': { format: 'pdf', noText: true },
  'pdf/testPDF_twoAuthors.pdf': { format: 'pdf', noText: true, title: 'Sample Title' },
  'pdf/testPageNumber.pdf': { format: 'pdf', phrases: ['This is page one.'] },
  'pdf/testPopupAnnotation.pdf': { format: 'pdf', phrases: ['this is the note'] },

  'ppt/testPPT_2imgs.ppt': { format: 'ppt', phrases: ['The quick brown fox jumps over the lazy dog'], title: 'The quick brown fox jumps over the lazy dog' },
  'ppt/testPPT_EmbeddedPDF.ppt': { format: 'ppt', noText: true, title: 'PowerPoint Presentation' },
  'ppt/testPPT_various.ppt': { format: 'ppt', phrases: ['Here is a text box', 'Row 2 Col 3', 'This is a footnote.'], title: 'Slide 1', absent: ['Click to edit Master'] },

  'pptx/testComment.pptx': { format: 'pptx', phrases: ['Here is some text', 'Here is a comment'], title: 'Here is some text' },
  'pptx/testOCR.pptx': { format: 'pptx', phrases: ['This is some text'], title: 'PowerPoint Presentation' },
  'pptx/testPPT.pptx': { format: 'pptx', phrases: ['Different words to test against', 'Black Panther'], title: 'Attachment Test' },
  'pptx/testPPT_2imgs.pptx': { format: 'pptx', phrases: ['The quick brown fox jumps over the lazy dog'], title: 'The quick brown fox jumps over the lazy dog' },
  'pptx/testPPT_comment.pptx': { format: 'pptx', phrases: ['subtitle', 'add some content to this tps deck'], title: 'title' },
  'pptx/testWordArt.pptx': { format: 'pptx', phrases: ['Here is some red word Art'], title: 'Slide 1' },

  'rtf/testRTF-ms932.rtf': { format: 'rtf', phrases: ['こんにちは', 'テスト'], title: 'タイトル' },
  'rtf/testRTFListMicrosoftWord.rtf': { format: 'rtf', phrases: ['A short ordered list:', 'A nested list:'], absent: ['Times New Roman'] },
  'rtf/testRTFTableCellSeparation2.rtf': { format: 'rtf', phrases: ['Fax / Phone Station'], absent: ['StationFax'] },
  'rtf/testRTFUmlautSpaces2.rtf': { format: 'rtf', phrases: ['Übersicht'], absent: ['Helvetica'] },
  'rtf/testRTFWithCurlyBraces.rtf': { format: 'rtf', phrases: ['{ some text inside curly brackets }'], title: 'Методика' },
  'rtf/testRTF_npeFromWMFInTikaServer.rtf': { format: 'rtf', phrases: ['Example text to extract from RTF.', 'Example footer'], title: 'Cardiff' },

  'txt/a_bii-s-2_metabolite profiling_NMR spectroscopy.txt': { format: 'text', phrases: ['Parameter Value[NMR Probe]'] },
  'txt/a_metabolome.txt': { format: 'text', phrases: ['Parameter Value[standard volume]'] },
  'txt/a_proteome.txt': { format: 'text', phrases: ['Comment[PRIDE Accession]'] },
  'txt/english.cp500.txt': { format: 'text', phrases: ['IBM System p Redbooks', 'Warranties, licenses and maintenance'] },
  'txt/russian.cp866.txt': { format: 'text', phrases: ['Однажды, в студеную зимнюю пору', 'Лошадка, везущая хворосту воз.'] },
  'txt/s_BII-S-2.txt': { format: 'text', phrases: ['Characteristics[organism]'] },
  'txt/testMessageNews.txt': { format: 'text', phrases: ['alt.startrek.creative', 'Scene IV'] },
  'txt/testRFC822_simple_inline_body.txt': { format: 'text', phrases: ['Csh Programming Considered Harmful'] },
  'txt/testStandardsExtractor.txt': { format: 'text', phrases: ['American National Standards Institute (ANSI)'] },
  'txt/testTXTNonASCIIUTF8.txt': { format: 'text', phrases: ['Der schnelle braune Fuchs springt über den faulen Hund', 'الكلب'] },

  'xls/jxl.xls': { format: 'xls', phrases: ['Bilko default format'] },
  'xls/testEXCEL_hyperlinks.xls': { format: 'xls', phrases: ['mailto:user@tika.apache.org?subject=help', 'http_tika_link'] },
  'xls/testWPSAttachment.xls': { format: 'xls', phrases: ['Sheet1', 'Sheet3'] },

  'xlsx/testDdeLink.xlsx': { format: 'xlsx', phrases: ['Sheet1'] },
  'xlsx/testEXCEL_embeddedPDF_windows.xlsx': { format: 'xlsx', phrases: ['Sheet1'] },
  'xlsx/testEXCEL_embeded.xlsx': { format: 'xlsx', phrases: ['Special characters: !"£$%^&*()', 'SKIP1'], title: 'The quick brown fox jumps over the lazy dog' },
  'xlsx/testEXCEL_poi-61034.xlsx': { format: 'xlsx', phrases: ['Sheet1', 'Sheet6'] },
  'xlsx/testEXCEL_protected_passtika_2.xlsx': { code: 'encrypted', reason: /XLSX is encrypted \(password required\)/ },

  'xml/basic_embedded.xml': { format: 'xml', phrases: ['Nikolai Lobachevsky', 'main_content'], absent: ['Licensed to the Apache Software Foundation'] },
  'xml/embedded_with_npe.xml': { format: 'xml', phrases: ['main_content', 'another null pointer exception'] },
  'xml/example.xml': { format: 'xml', phrases: ['hello world! the quick brown fox jumped over the lazy dog'], absent: ['action can be'] },
  'xml/npe.xml': { format: 'xml', phrases: ['some_embedded_content', 'embeddedAuthor'] },

  'zip/gbk.zip': { format: 'zip', phrases: ['审计压缩包文件检索测试/集团邮件审计系统2021年自动巡检需求文档_V4.0.doc'] },
  'zip/testZipEncrypted.zip': { format: 'zip', phrases: ['unencrypted.txt', 'encrypted.txt'] },
};
