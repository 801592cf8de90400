/** How numbers, sizes, dates and durations read in the app. */

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

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

/** "1h 02m", "5m 38s", "42s". */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '—';
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

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
