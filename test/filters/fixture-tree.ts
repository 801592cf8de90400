/**
 * A realistic watched folder on disk: documents beside a git repository with node_modules, a virtualenv,
 * build outputs, secrets, editor and OS junk. Shared by the walk and diff tests.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Files that a default configuration must index (relative paths). */
export const DOCUMENTS = [
  'Documents/House/Build/permit.pdf',
  'Documents/Invoice (1).pdf',
  'Documents/notes.md',
  'Documents/report.pdf',
  'Documents/Résumé.docx',
  'project/.env.example',
  'project/.env.sample',
  'project/.gitignore',
  'project/README.md',
  'project/certs/ca.crt',
  'project/docs/guide.md',
  'project/src/index.ts',
  'project/src/util.py',
].sort();

/** Junk and secrets the default configuration must never yield. */
export const JUNK = [
  '.ssh/config',
  '.ssh/id_rsa',
  '.ssh/id_rsa.pub',
  'Documents/.DS_Store',
  'Documents/.notes.md.swp',
  'Documents/.#notes.md',
  'Documents/.~lock.report.odt#',
  'Documents/Thumbs.db',
  'Documents/desktop.ini',
  'Documents/notes.md~',
  'Documents/~$budget.xlsx',
  'backup.p12',
  'keys/id_ed25519',
  'login.keychain-db',
  'passwords.kdbx',
  'project/.env',
  'project/.env.local',
  'project/.git/HEAD',
  'project/.git/config',
  'project/.git/objects/ab/cdef0123',
  'project/.idea/workspace.xml',
  'project/.venv/lib/python3.11/site-packages/requests/__init__.py',
  'project/.vscode/settings.json',
  'project/build/CMakeFiles/app.dir/flags.make',
  'project/build/app.js.map',
  'project/build/bundle.min.js',
  'project/build/main.o',
  'project/certs/server.key',
  'project/certs/server.pem',
  'project/dist/bundle.js',
  'project/node_modules/.bin/left-pad',
  'project/node_modules/left-pad/README.md',
  'project/node_modules/left-pad/index.js',
  'project/node_modules/left-pad/package.json',
  'project/package-lock.json',
  'project/src/__pycache__/util.cpython-311.pyc',
  'project/target/debug/app',
];

export async function makeTree(): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'filesift-filters-'));
  for (const rel of [...DOCUMENTS, ...JUNK]) {
    const abs = path.join(root, ...rel.split('/'));
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, `content of ${rel}\n`);
  }
  return root;
}

export async function removeTree(root: string): Promise<void> {
  await fs.rm(root, { recursive: true, force: true });
}
