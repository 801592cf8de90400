/**
 * Writes 7z archives for tests and the torture bench with 7z-wasm itself (7-Zip's `a` command inside the module's
 * in-memory file system): the same library src/pipeline/formats/sevenzip.ts reads them with.
 */
import sevenZipPackage from '7z-wasm';

export interface SevenZipEntrySpec {
  name: string;
  data: Buffer | string;
}

export interface SevenZipWriteOptions {
  /** One solid block for all members (7-Zip's default), or each member its own stream. */
  solid?: boolean;
  password?: string;
  /** Encrypt the listing too (-mhe=on): without the password not even the names can be read. */
  encryptNames?: boolean;
}

export async function write7z(entries: readonly SevenZipEntrySpec[], options: SevenZipWriteOptions = {}): Promise<Buffer> {
  const errors: string[] = [];
  const module = await sevenZipPackage.default({ print: () => undefined, printErr: (line) => errors.push(line) });
  const made = new Set<string>();
  const mkdir = (dir: string) => {
    if (!made.has(dir)) module.FS.mkdir(dir);
    made.add(dir);
  };
  mkdir('/in');
  for (const entry of entries) {
    const parts = entry.name.split('/');
    for (let i = 1; i < parts.length; i++) mkdir(`/in/${parts.slice(0, i).join('/')}`);
    module.FS.writeFile(`/in/${entry.name}`, typeof entry.data === 'string' ? Buffer.from(entry.data) : entry.data);
  }
  module.FS.chdir('/in');
  const args = ['a', '/out.7z', ...entries.map((e) => e.name), '-mx=1', `-ms=${options.solid === false ? 'off' : '1g'}`];
  if (options.password) args.push(`-p${options.password}`);
  if (options.encryptNames) args.push('-mhe=on');
  module.callMain(args);
  if (errors.some((e) => /ERROR/.test(e))) throw new Error(`7z-wasm could not write the archive: ${errors.join(' ')}`);
  return Buffer.from(module.FS.readFile('/out.7z'));
}
