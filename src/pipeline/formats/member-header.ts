/**
 * How an archive's text marks its members: each member's text follows a line holding only its path inside the
 * archive, in brackets ("[docs/report.docx]"). Written by formats/archive.ts, read by the analyzer (a member's path
 * is neither a title nor a sentence) and anything else that wants the members back.
 */

/** The formats whose text is members' text under member headers. */
export const ARCHIVE_FORMATS: ReadonlySet<string> = new Set(['zip', 'tar', '7z']);

const HEADER = /^\[([^\n]+)\]$/;

/** The line that introduces a member. */
export function memberHeader(name: string): string {
  return `[${name}]`;
}

/** The member path a line introduces, or undefined when the line is not a member header. */
export function memberName(line: string): string | undefined {
  return HEADER.exec(line)?.[1];
}

export interface ArchiveMemberText {
  name: string;
  /** The member's text ('' for a member listed by name only). */
  text: string;
}

/** An archive's text split back into its members, in order; text before the first header (none today) is dropped. */
export function splitMembers(text: string): ArchiveMemberText[] {
  const members: ArchiveMemberText[] = [];
  let lines: string[] = [];
  const close = (): void => {
    const last = members[members.length - 1];
    if (last) last.text = lines.join('\n').trim();
    lines = [];
  };
  for (const line of text.split('\n')) {
    const name = memberName(line);
    if (name === undefined) {
      lines.push(line);
      continue;
    }
    close();
    members.push({ name, text: '' });
  }
  close();
  return members;
}
