/**
 * What the layout promises, checked: SQL only in the store, a README Layout that names every folder of src/ and
 * nothing that is not there, and a test/ tree that mirrors src/. TypeBox comes from its one bundled copy. Import rules (layers, cycles, who may import
 * http/) are checked by dependency-cruiser (`npm run lint:arch`, .dependency-cruiser.cjs).
 */
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from './helpers/shared.js';

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? [full, ...walk(full)] : [full];
  });
}

const rel = (p: string) => path.relative(repoRoot, p).split(path.sep).join('/');
const folders = (root: string) => walk(path.join(repoRoot, root)).filter((p) => statSync(p).isDirectory()).map(rel);

/** SQL as the store writes it: upper-case keywords in the shapes of a statement (prose never matches). */
const SQL = /\b(SELECT\s[\s\S]{0,200}?\sFROM\s|INSERT\s+INTO\s|DELETE\s+FROM\s|UPDATE\s+\w+\s+SET\s|CREATE\s+(TABLE|INDEX|EXTENSION)\b|VACUUM\b|ALTER\s+TABLE\b|DROP\s+(TABLE|DATABASE|INDEX)\b|SET\s+LOCAL\b)/;

describe('architecture', () => {
  it('writes SQL in src/store only', () => {
    const offenders = [...walk(path.join(repoRoot, 'src')), ...walk(path.join(repoRoot, 'workers'))]
      .filter((p) => p.endsWith('.ts') && !rel(p).startsWith('src/store/'))
      .filter((p) => SQL.test(readFileSync(p, 'utf8')))
      .map(rel);
    expect(offenders).to.deep.equal([]);
  });

  it('the SQL check finds SQL', () => {
    expect(SQL.test("db.query('SELECT id FROM files WHERE path = $1')")).to.equal(true);
    expect(SQL.test('await tx.exec(`SET LOCAL jit = off`)')).to.equal(true);
    expect(SQL.test('// select the best chunk from each file')).to.equal(false);
  });

  it("the README's Layout names every folder of src/, and only folders that exist", () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Layout'), readme.indexOf('\n## ', readme.indexOf('### Layout')));
    expect(section, 'README has a Layout section').to.have.length.greaterThan(100);
    const named = new Set([...section.matchAll(/`((?:src|workers|sql|scripts|bench|test|web)(?:\/[\w.-]+)*\/?)`/g)].map((m) => m[1]!.replace(/\/$/, '')));
    for (const name of named) expect(() => statSync(path.join(repoRoot, name)), `${name} is named in the Layout`).not.to.throw();
    // Every folder of src/ and of src/actors by its path; a folder deeper down (pipeline/formats) at least by name.
    const unnamed = folders('src').filter((f) => {
      const depth = f.split('/').length;
      if (depth <= 2 || (depth === 3 && f.startsWith('src/actors/'))) return !named.has(f);
      return depth === 3 && !section.includes(`\`${f.split('/').pop()}/\``);
    });
    expect(unnamed).to.deep.equal([]);
    // The web app's folders (web/src/screens, ...) by their path.
    expect(folders('web').filter((f) => f.split('/').length <= 3 && !named.has(f))).to.deep.equal([]);
  });

  it('test/ mirrors src/ (and bench/, web/): every test folder has its source folder', () => {
    const shared = /^test\/(helpers|fixtures)(\/|$)|\/fixtures(\/|$)/;
    const unmatched = folders('test')
      .filter((f) => !shared.test(f))
      .filter((f) => {
        const source = /^test\/(bench|web)(\/|$)/.test(f) ? f.slice('test/'.length) : `src/${f.slice('test/'.length)}`;
        try {
          return !statSync(path.join(repoRoot, source)).isDirectory();
        } catch {
          return true;
        }
      });
    expect(unmatched).to.deep.equal([]);
  });

  it("loads TypeBox from the one bundled copy, built from the installed version (scripts/build-vendor.ts)", async () => {
    const installed = (JSON.parse(readFileSync(path.join(repoRoot, 'node_modules', 'typebox', 'package.json'), 'utf8')) as { version: string }).version;
    const meta = JSON.parse(readFileSync(path.join(repoRoot, 'dist', 'vendor', 'typebox', 'meta.json'), 'utf8')) as { typebox: string };
    expect(meta.typebox).to.equal(installed);
    for (const [specifier, file] of [['#typebox', 'index.mjs'], ['#typebox/value', 'value.mjs']] as const) {
      expect(rel(fileURLToPath(import.meta.resolve(specifier)))).to.equal(`dist/vendor/typebox/${file}`);
    }
    // The bundle is the real library: a schema made by one entry is checked by the other.
    const { default: Type } = await import('#typebox');
    const { default: Value } = await import('#typebox/value');
    const schema = Type.Object({ limit: Type.Integer({ minimum: 1 }) });
    expect(Value.Check(schema, { limit: 3 })).to.equal(true);
    expect(Value.Check(schema, { limit: 0 })).to.equal(false);
  });
});
