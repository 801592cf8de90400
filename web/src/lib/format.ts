/** How numbers, dates and kinds of file read in the app (sizes and durations as the service and the CLI write them). */
import { formatDuration as duration } from '../../../src/lib/format.js';

export { formatSize } from '../../../src/lib/format.js';

/** A date as the person's locale writes it (with the time when it is today). */
export function formatDate(iso: string | null): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '—';
  const today = new Date();
  const sameDay = date.toDateString() === today.toDateString();
  return sameDay ? date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) : date.toLocaleDateString();
}

export function formatDateTime(iso: string | null): string {
  if (!iso) return '—';
  const date = new Date(iso.endsWith('Z') || /[+-]\d\d:\d\d$/.test(iso) ? iso : `${iso}Z`);
  return Number.isNaN(date.getTime()) ? '—' : date.toLocaleString();
}

/** "1h 02m", "5m 38s", "42s"; a dash when unknown. */
export const formatDuration = (seconds: number | null): string => (seconds === null ? '—' : duration(seconds));

export const formatCount = (n: number): string => n.toLocaleString();

/** What kind of file an extension is, for its icon. */
export type FileKind = 'pdf' | 'document' | 'sheet' | 'slides' | 'image' | 'code' | 'archive' | 'mail' | 'text' | 'other';

const KINDS: Record<FileKind, string[]> = {
  pdf: ['pdf'],
  document: ['doc', 'docx', 'odt', 'rtf', 'epub', 'pages'],
  sheet: ['xls', 'xlsx', 'ods', 'csv', 'tsv', 'numbers'],
  slides: ['ppt', 'pptx', 'odp', 'key'],
  image: ['png', 'jpg', 'jpeg', 'gif', 'webp', 'svg', 'bmp', 'tif', 'tiff', 'heic'],
  code: ['ts', 'tsx', 'js', 'jsx', 'py', 'rs', 'go', 'java', 'c', 'h', 'cpp', 'cs', 'rb', 'php', 'sh', 'sql', 'json', 'yaml', 'yml', 'toml', 'xml', 'html', 'css'],
  archive: ['zip', 'tar', 'gz', 'tgz', '7z', 'rar', 'bz2', 'xz'],
  mail: ['eml', 'mbox', 'msg'],
  text: ['txt', 'md', 'markdown', 'rst', 'log', 'org', 'tex'],
  other: [],
};

export function fileKind(extension: string): FileKind {
  const ext = extension.toLowerCase();
  for (const [kind, list] of Object.entries(KINDS)) if (list.includes(ext)) return kind as FileKind;
  return 'other';
}
