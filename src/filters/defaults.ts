/**
 * The default filter configuration: what a careful user expects never to see in a search index.
 *
 * Rule for folder names: a folder is excluded by name only when that name is (almost) never chosen by a
 * person for their own documents: `node_modules`, `__pycache__`, `.git`, `dist`, `cmake-build-debug`.
 * Generic English words are NOT excluded as whole folders: `build`, `out`, `target`, `bin`, `lib`,
 * `vendor`, `packages`, `coverage`, `logs`, `tmp`, `env`. A "Build" folder may hold a house build's
 * permits, "Target" a sales team's goals, "Vendor" supplier contracts; excluding them would make documents
 * vanish silently, which is the worst failure of a search tool (junk in results is at least visible).
 * Instead we exclude what makes build folders heavy and noisy: tool-specific sub-folders (`target/debug/`,
 * `CMakeFiles/`, `build/intermediates/`) and artifact files that are never documents (`*.o`, `*.class`,
 * `*.min.js`, source maps). Developers who want whole build folders gone add DEVELOPER_EXCLUDES.
 *
 * Secrets are excluded in both modes because indexed text is summarised, possibly by a remote model.
 */
import type { FilterConfig } from './schema.js';

export interface PatternGroup {
  id: string;
  title: string;
  why: string;
  patterns: readonly string[];
}

export const DEFAULT_EXCLUDE_GROUPS: readonly PatternGroup[] = Object.freeze([
  {
    id: 'version-control',
    title: 'Version control',
    why: 'Repository internals: thousands of compressed objects, never documents. `.git` has no slash so the `.git` file of worktrees and submodules goes too.',
    patterns: ['.git', '.hg/', '.svn/', '.bzr/', 'CVS/', '_darcs/', '.jj/', '.pijul/', '.fslckout', '_FOSSIL_'],
  },
  {
    id: 'dependencies',
    title: 'Installed dependencies and toolchains',
    why: 'Third-party packages: huge, duplicated across projects, and their READMEs drown your own documents.',
    patterns: [
      'node_modules/',
      'bower_components/',
      'jspm_packages/',
      '.pnpm-store/',
      '.yarn/',
      '.npm/',
      '.venv/',
      'venv/',
      '__pypackages__/',
      'site-packages/',
      '.eggs/',
      '*.egg-info/',
      '.tox/',
      '.nox/',
      '.conda/',
      'miniconda3/',
      'anaconda3/',
      'miniforge3/',
      '.pyenv/',
      '.nvm/',
      '.bundle/',
      'elm-stuff/',
      '.dart_tool/',
      '.pub-cache/',
      '.stack-work/',
      '.terraform/',
      '.m2/',
      '.cargo/',
      '.rustup/',
      'go/pkg/mod/',
    ],
  },
  {
    id: 'build-outputs',
    title: 'Build outputs',
    why: 'Generated from sources you already index. Generic names (build, out, target) are not excluded whole, see DEVELOPER_EXCLUDES.',
    patterns: [
      'dist/',
      '_build/',
      '.build/',
      'dist-newstyle/',
      '.next/',
      '.nuxt/',
      '.output/',
      '.svelte-kit/',
      '.angular/',
      '.docusaurus/',
      '.expo/',
      '.vercel/',
      '.netlify/',
      '.serverless/',
      'DerivedData/',
      'CMakeFiles/',
      'cmake-build-*/',
      'CMakeCache.txt',
      'target/debug/',
      'target/release/',
      'build/intermediates/',
      'build/tmp/',
      'zig-cache/',
      '.zig-cache/',
      'zig-out/',
      '*.o',
      '*.so',
      '*.dylib',
      '*.dll',
      '*.class',
      '*.pyc',
      '*.pyo',
      '*.pyd',
      '*.rlib',
      '*.rmeta',
      '*.gch',
      '*.pch',
      '*.tsbuildinfo',
      '*.js.map',
      '*.css.map',
      '*.min.js',
      '*.min.css',
    ],
  },
  {
    id: 'caches',
    title: 'Caches',
    why: 'Regenerated at will, churn constantly (every write would re-index), never hold your documents.',
    patterns: [
      '.cache/',
      '__pycache__/',
      '.pytest_cache/',
      '.mypy_cache/',
      '.ruff_cache/',
      '.hypothesis/',
      '.ipynb_checkpoints/',
      '.sass-cache/',
      '.parcel-cache/',
      '.turbo/',
      '.gradle/',
      '.nyc_output/',
      '.eslintcache',
      '.stylelintcache',
      '.thumbnails/',
      'Library/Caches/',
    ],
  },
  {
    id: 'lockfiles-and-tool-logs',
    title: 'Lock files and package-manager logs',
    why: 'Machine-written lists of package names and hashes: they match every keyword search for a library name.',
    patterns: [
      'package-lock.json',
      'npm-shrinkwrap.json',
      'yarn.lock',
      'pnpm-lock.yaml',
      'bun.lock',
      'bun.lockb',
      'Cargo.lock',
      'poetry.lock',
      'Pipfile.lock',
      'uv.lock',
      'composer.lock',
      'Gemfile.lock',
      'go.sum',
      'npm-debug.log*',
      'yarn-debug.log*',
      'yarn-error.log*',
      '.pnpm-debug.log*',
    ],
  },
  {
    id: 'editors',
    title: 'Editor and IDE files',
    why: 'Swap, backup, lock and workspace files: half-written copies of real documents, or IDE state.',
    patterns: [
      '.idea/',
      '.vs/',
      '.vscode/',
      '.history/',
      '.*.sw[a-p]', // vim swap files (.name.swp, .swo, ...); the leading dot keeps Flash `.swf` files safe
      '.*.un~', // vim undo files
      '*~', // emacs, gedit, vim backups
      '.#*', // emacs lock links
      '#*#', // emacs auto-save
      '.~lock.*#', // LibreOffice locks
      '~$*', // Microsoft Office owner files (~$report.docx)
      '*.tmp',
      '*.crdownload', // downloads in progress: indexed once complete, under their real name
      '*.part',
      '*.partial',
      '*.download',
    ],
  },
  {
    id: 'os-files',
    title: 'Operating-system files',
    why: 'Folder metadata, thumbnails and trash written by macOS, Windows and Linux desktops.',
    patterns: [
      '.DS_Store',
      '._*', // AppleDouble resource forks on non-Mac drives
      '.AppleDouble/',
      '.LSOverride',
      '.Spotlight-V100/',
      '.Trashes/',
      '.Trash/',
      '.fseventsd/',
      '.TemporaryItems/',
      '.DocumentRevisions-V100/',
      '.VolumeIcon.icns',
      '.apdisk',
      'Thumbs.db',
      'ehthumbs.db',
      'ehthumbs_vista.db',
      'desktop.ini',
      '$RECYCLE.BIN/',
      'System Volume Information/',
      '.directory',
      '.Trash-*/',
      'lost+found/',
      '.nfs*',
      '.fuse_hidden*',
    ],
  },
  {
    id: 'secrets',
    title: 'Secrets and credentials',
    why: 'Keys, tokens, passwords and command histories (which hold typed passwords) must never reach an index or a summariser. A file under any other name that holds a private key or a token is kept out by its content (see README, Security). `*.key` also hides Keynote files: rescue those with an anchored include such as `/Presentations/*.key`.',
    patterns: [
      '.env',
      '.env.*',
      '*.env',
      '*.pem',
      '*.key',
      '*.p12',
      '*.pfx',
      '*.p8',
      '*.pkcs12',
      '*.jks',
      '*.keystore',
      '*.ppk',
      'id_rsa*',
      'id_dsa*',
      'id_ecdsa*',
      'id_ed25519*',
      'secring.*',
      '*.keychain',
      '*.keychain-db',
      '*.kdbx',
      '*.kdb',
      '*.1pux',
      '*.1pif',
      '*.agilekeychain',
      '*.opvault',
      '*.ovpn',
      '*.tfstate',
      '*.tfstate.*',
      '*.tfvars',
      'client_secret*.json',
      '.netrc',
      '_netrc',
      '.pgpass',
      '.npmrc',
      '.pypirc',
      '.git-credentials',
      '.htpasswd',
      '.vault-token',
      '.*_history', // shell and REPL histories: .bash_history, .zsh_history, .mysql_history, .psql_history, .python_history…
      '.zhistory',
      '.histfile',
      '.Rhistory',
      '.lesshst',
      '.viminfo', // vim's command history and registers
      'logins.json', // Firefox and Thunderbird saved passwords, and their keys
      'key3.db',
      'key4.db',
      'signons.sqlite',
      'cookies.sqlite',
      '.ssh/',
      '.gnupg/',
      '.aws/',
      '.azure/',
      '.kube/',
      '.docker/',
      '.password-store/',
      '.terraform.d/', // credentials.tfrc.json: Terraform Cloud tokens
      '.thunderbird/', // mail profiles: stored passwords, keys
      'Thunderbird/Profiles/', // macOS and Windows Thunderbird profiles
      'Firefox/Profiles/', // macOS and Windows Firefox profiles
      '.config/', // XDG config: tokens of gh, gcloud, rclone...
      '.local/', // XDG data: keyrings, trash, app state
      '.mozilla/', // browser profiles: cookies, saved logins
      'AppData/', // Windows per-user app data and browser profiles
      'Library/Keychains/',
    ],
  },
]);

/** Blacklist mode: files the secret patterns would catch but which are safe and useful (templates). */
export const DEFAULT_BLACKLIST_INCLUDE: readonly string[] = Object.freeze([
  '.env.example',
  '.env.sample',
  '.env.template',
  '.env.dist',
]);

/** Whitelist mode: document formats (one pattern each, so a user can drop one). */
export const DEFAULT_WHITELIST_INCLUDE: readonly string[] = Object.freeze([
  '*.pdf',
  '*.doc',
  '*.docx',
  '*.odt',
  '*.rtf',
  '*.txt',
  '*.md',
  '*.markdown',
  '*.rst',
  '*.adoc',
  '*.org',
  '*.tex',
  '*.epub',
  '*.ppt',
  '*.pptx',
  '*.odp',
  '*.xls',
  '*.xlsx',
  '*.ods',
  '*.csv',
  '*.html',
  '*.htm',
  '*.eml',
  '*.msg',
  '*.mbox',
]);

/** Every protective exclude pattern, in group order. Used by both modes (in whitelist mode too: `*.md` would
 * otherwise pick up every README in node_modules). */
export const DEFAULT_EXCLUDE: readonly string[] = Object.freeze(DEFAULT_EXCLUDE_GROUPS.flatMap((g) => g.patterns));

/**
 * Not applied by default (see the rule at the top): whole generic build/output folders and logs, for users
 * who watch source trees. Offered in the documentation as a one-step addition.
 */
export const DEVELOPER_EXCLUDES: readonly string[] = Object.freeze([
  'build/',
  'out/',
  'target/',
  'bin/',
  'obj/',
  'vendor/',
  'coverage/',
  '*.log',
]);

/** A fresh, mutable copy of the default configuration (blacklist mode). */
export function defaultFilterConfig(): FilterConfig {
  return {
    mode: 'blacklist',
    exclude: [...DEFAULT_EXCLUDE],
    include: [...DEFAULT_BLACKLIST_INCLUDE],
    blacklist_exclude: [...DEFAULT_EXCLUDE],
    blacklist_include: [...DEFAULT_BLACKLIST_INCLUDE],
    whitelist_include: [...DEFAULT_WHITELIST_INCLUDE],
    whitelist_exclude: [...DEFAULT_EXCLUDE],
  };
}
