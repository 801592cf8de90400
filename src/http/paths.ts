import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { createErrorWith, type ErrorFields } from './errors.js';

/**
 * Checks a client-supplied path: absolute, existing, of the expected kind, readable. Every failure is a 400
 * whose body keeps the endpoint's own fields (`fields`, e.g. success and files_indexed).
 */
export async function checkPath(raw: string, kind: 'file' | 'directory', field: string, fields: ErrorFields): Promise<string> {
  const fail = (message: string) => createErrorWith('invalid_path', { success: false, ...fields }, message);
  if (!path.isAbsolute(raw)) throw fail(`${field} must be an absolute path, got '${raw}'`);
  const resolved = path.resolve(raw);
  let info;
  try {
    info = await stat(resolved);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw fail(code === 'ENOENT' ? `${field} '${resolved}' does not exist` : `${field} '${resolved}' cannot be read (${code})`);
  }
  if (kind === 'directory' && !info.isDirectory()) throw fail(`${field} '${resolved}' is not a directory`);
  if (kind === 'file' && !info.isFile()) throw fail(`${field} '${resolved}' is not a regular file`);
  try {
    await access(resolved, kind === 'directory' ? constants.R_OK | constants.X_OK : constants.R_OK);
  } catch {
    throw fail(`${field} '${resolved}' cannot be read (permission denied)`);
  }
  return resolved;
}
