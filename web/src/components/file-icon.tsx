import { fileKind, type FileKind } from '../lib/format.js';

/** One glyph per kind of file; the extension is written beside it, so the icon is decoration (aria-hidden). */
const GLYPHS: Record<FileKind, string> = {
  pdf: 'PDF',
  document: 'DOC',
  sheet: 'XLS',
  slides: 'PPT',
  image: 'IMG',
  code: '</>',
  archive: 'ZIP',
  mail: '@',
  text: 'TXT',
  other: '•••',
};

export function FileIcon({ extension }: { extension: string }) {
  const kind = fileKind(extension);
  return (
    <span class={`file-icon kind-${kind}`} aria-hidden="true">
      {GLYPHS[kind]}
    </span>
  );
}
