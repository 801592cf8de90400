import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { imageCommand, imageEnv } from './helpers/dockerfile.js';
import { repoRoot } from './helpers/shared.js';

/**
 * The service is started three ways, each writing its process settings itself: the `filesift` command's first
 * line (src/cli.ts, `env -S`), `npm start` (package.json) and the image (the Dockerfile's runtime ENV and CMD).
 * glibc's malloc variables and node's flags cannot be set from inside the process, so the three cannot share one
 * source; this holds them equal. cli.test.ts and compose.test.ts check that the first line and the image's
 * command reach a running process.
 */
interface LaunchSettings {
  /** The malloc variables (MALLOC_*), name=value. */
  malloc: string[];
  /** node's own flags, before the script. */
  nodeFlags: string[];
}

const MALLOC = /^MALLOC_[A-Z_]+=/;

/** Words up to `node`: variables; after it, up to the script: node's flags. */
function fromWords(words: readonly string[], script: string): LaunchSettings {
  const node = words.indexOf('node');
  const end = words.indexOf(script);
  if (node < 0) throw new Error(`no node in: ${words.join(' ')}`);
  return { malloc: words.slice(0, node).filter((w) => MALLOC.test(w)), nodeFlags: words.slice(node + 1, end < 0 ? undefined : end) };
}

describe('launch settings: the filesift command, npm start and the image agree', () => {
  let sources: Record<'command' | 'npm start' | 'image', LaunchSettings>;

  before(async () => {
    const [cli, pkg, dockerfile] = await Promise.all(
      ['src/cli.ts', 'package.json', 'Dockerfile'].map((file) => readFile(path.join(repoRoot, file), 'utf8')),
    );
    const shebang = /^#!\/usr\/bin\/env -S (.*)$/m.exec(cli!)?.[1];
    expect(shebang, "src/cli.ts's first line runs node through env -S").to.be.a('string');
    const start = (JSON.parse(pkg!) as { scripts: Record<string, string> }).scripts.start;
    expect(start, 'package.json has a start script').to.be.a('string');
    // The image: its runtime stage's ENV block and exec-form CMD.
    const env = imageEnv(dockerfile!);
    const cmd = imageCommand(dockerfile!);
    expect(cmd, "the runtime stage's CMD").to.be.an('array');
    sources = {
      command: fromWords(shebang!.split(/\s+/), '(script)'),
      'npm start': fromWords(start!.slice(start!.lastIndexOf('&&') + 2).trim().split(/\s+/), 'dist/src/cli.js'),
      image: { malloc: env.filter((w) => MALLOC.test(w)), nodeFlags: fromWords(cmd!, 'dist/src/cli.js').nodeFlags },
    };
  });

  it('sets glibc malloc variables and node flags in the command, as measured (README, Memory)', () => {
    expect(sources.command.malloc).to.include.members(['MALLOC_ARENA_MAX=2', 'MALLOC_MMAP_THRESHOLD_=131072']);
    expect(sources.command.nodeFlags).to.include('--max-semi-space-size=8');
  });

  for (const other of ['npm start', 'image'] as const) {
    it(`${other}: the same malloc variables and node flags as the command`, () => {
      expect([...sources[other].malloc].sort(), `${other}'s malloc variables`).to.deep.equal([...sources.command.malloc].sort());
      expect(sources[other].nodeFlags, `${other}'s node flags`).to.deep.equal(sources.command.nodeFlags);
    });
  }
});
