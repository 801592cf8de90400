/**
 * The one rule for symbolic links: below a folder a person named, filesift never follows a link. The walk skips
 * links, the watcher drops their events, and a file is opened only through this module: the open refuses a link
 * in the last component (O_NOFOLLOW), and the real path of the descriptor actually opened must be the path asked
 * for, so a parent folder swapped for a link between the walk and the open is caught too (no check-then-open
 * race: the check is made on what was opened). Paths handed here are real paths by construction (roots are
 * resolved when named, names below them are never links), so "its real path is itself" is the whole test.
 */
import { constants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** O_NOFOLLOW where the platform has it (not on Windows, where the real-path check does the work). */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** Opening a FIFO must not wait for a writer; no effect on regular files. */
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

export type NoFollowOpen = { ok: true; handle: FileHandle } | { ok: false; code: 'symlink'; reason: string } | { ok: false; code: 'error'; error: unknown };

/** Where the real path of an open descriptor can be read (Linux). */
const PROC_FD = process.platform === 'linux' ? '/proc/self/fd/' : null;

/** The real path of the file behind an open handle, or null when the platform cannot say. */
async function descriptorPath(handle: FileHandle): Promise<string | null> {
  if (PROC_FD === null) return null;
  try {
    return await fs.readlink(PROC_FD + String(handle.fd));
  } catch {
    return null; // /proc not mounted (some containers): fall back to comparing identities
  }
}

/**
 * Whether `absolute` names, without any link, the very file `handle` has open: 'self', 'other' (a link was on
 * the way), or 'gone' (deleted since it was opened, so no path names it any more).
 */
async function whoIsOpen(handle: FileHandle, absolute: string): Promise<'self' | 'other' | 'gone'> {
  const viaProc = await descriptorPath(handle);
  if (viaProc !== null) {
    if (viaProc === absolute) return 'self';
    return viaProc.endsWith(' (deleted)') ? 'gone' : 'other';
  }
  // No /proc: the path must be its own real path, and still lead to the inode we hold.
  try {
    const [real, opened] = await Promise.all([fs.realpath(absolute), handle.stat()]);
    if (real !== absolute) return 'other';
    const now = await fs.stat(real);
    return now.dev === opened.dev && now.ino === opened.ino ? 'self' : 'other';
  } catch {
    return 'gone';
  }
}

/** Why a path is refused as a link. */
export function linkRefusal(absolute: string): string {
  return `${absolute} is a symbolic link, or lies below one: filesift never follows links inside the folders it indexes (index the target itself)`;
}

/** Opens `absolute` read-only without following any link; a link anywhere in it is refused as a value. */
export async function openNoFollow(absolute: string): Promise<NoFollowOpen> {
  let handle: FileHandle;
  try {
    handle = await fs.open(absolute, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    // O_NOFOLLOW on a link: ELOOP on Linux and macOS (EMLINK on FreeBSD).
    const code = (err as NodeJS.ErrnoException).code;
    if (O_NOFOLLOW !== 0 && (code === 'ELOOP' || code === 'EMLINK')) return { ok: false, code: 'symlink', reason: linkRefusal(absolute) };
    return { ok: false, code: 'error', error: err };
  }
  const opened = await whoIsOpen(handle, absolute);
  if (opened === 'self') return { ok: true, handle };
  await handle.close().catch(() => undefined);
  if (opened === 'gone') return { ok: false, code: 'error', error: Object.assign(new Error(`ENOENT: ${absolute} was deleted`), { code: 'ENOENT' }) };
  return { ok: false, code: 'symlink', reason: linkRefusal(absolute) };
}
