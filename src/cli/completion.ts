/**
 * `filesift completion bash|zsh`: shell completion scripts generated from the command table itself (commands,
 * their options, the values an option takes, folders or files where a path goes), so they never drift from it.
 */
import { UsageError, type CommandLineSpec, type CommandOptions } from '../lib/command-line.js';
import { defineCommand, EXIT, type CliCommand } from './program.js';

const SHELLS = ['bash', 'zsh'] as const;

/** Text safe inside the scripts' single-quoted strings and zsh's [descriptions] (colons are fine there). */
const clean = (text: string): string => text.replace(/['[\]\\`$]/g, '').replace(/\s+/g, ' ');

function optionNames(spec: CommandLineSpec<CommandOptions>): string[] {
  return [...Object.keys(spec.options).map((name) => `--${name}`), '--help'];
}

function bashPositional(spec: CommandLineSpec<CommandOptions>): string {
  const complete = spec.positional?.complete;
  if (complete === 'directory') return 'COMPREPLY=( $(compgen -d -- "$cur") )';
  if (complete === 'file') return 'COMPREPLY=( $(compgen -f -- "$cur") )';
  if (Array.isArray(complete)) return `COMPREPLY=( $(compgen -W '${complete.join(' ')}' -- "$cur") )`;
  return 'COMPREPLY=()';
}

export function bashScript(commands: readonly CliCommand[]): string {
  const cases = commands.map((c) => {
    const valueCases = Object.entries(c.spec.options)
      .filter(([, o]) => o.type === 'string')
      .map(([name, o]) => {
        if (o.type !== 'string') return '';
        const reply = o.choices
          ? `COMPREPLY=( $(compgen -W '${o.choices.join(' ')}' -- "$cur") )`
          : o.complete === 'directory'
            ? 'COMPREPLY=( $(compgen -d -- "$cur") )'
            : o.complete === 'file'
              ? 'COMPREPLY=( $(compgen -f -- "$cur") )'
              : 'COMPREPLY=()';
        return `        --${name}) ${reply}; return ;;`;
      });
    return [
      `    ${c.name})`,
      ...(valueCases.length > 0 ? ['      case "$prev" in', ...valueCases, '      esac'] : []),
      `      if [[ "$cur" == -* ]]; then COMPREPLY=( $(compgen -W '${optionNames(c.spec).join(' ')}' -- "$cur") ); return; fi`,
      `      ${bashPositional(c.spec)}`,
      '      ;;',
    ].join('\n');
  });
  return `# bash completion for filesift. Load it with: source <(filesift completion bash)
_filesift() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=( $(compgen -W '${commands.map((c) => c.name).join(' ')} --help --version' -- "$cur") )
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases.join('\n')}
  esac
}
complete -o filenames -o bashdefault -F _filesift filesift
`;
}

function zshArguments(spec: CommandLineSpec<CommandOptions>): string[] {
  const args = Object.entries(spec.options).map(([name, o]) => {
    const description = clean(o.description);
    if (o.type === 'boolean') return `'--${name}[${description}]'`;
    const action = o.choices ? `(${o.choices.join(' ')})` : o.complete === 'directory' ? '_files -/' : o.complete === 'file' ? '_files' : ' ';
    return `'${o.multiple ? '*' : ''}--${name}[${description}]:${clean(o.value ?? 'VALUE')}:${action}'`;
  });
  args.push("'(- *)--help[print this help and exit]'");
  const p = spec.positional;
  if (p) {
    const action = p.complete === 'directory' ? '_files -/' : p.complete === 'file' ? '_files' : Array.isArray(p.complete) ? `(${p.complete.join(' ')})` : ' ';
    args.push(`'${p.variadic ? '*' : ''}:${clean(p.name)}:${action}'`);
  }
  return args;
}

export function zshScript(commands: readonly CliCommand[]): string {
  const described = commands.map((c) => `    '${c.name}:${clean(c.summary)}'`);
  const cases = commands.map((c) => `    ${c.name})\n      _arguments -s \\\n        ${zshArguments(c.spec).join(' \\\n        ')}\n      ;;`);
  return `#compdef filesift
# zsh completion for filesift. Load it with: source <(filesift completion zsh)   (after compinit), or save it as
# _filesift in a folder of your $fpath.
compdef _filesift filesift

_filesift() {
  local -a commands
  commands=(
${described.join('\n')}
  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'filesift command' commands
    return
  fi
  local command=$words[2]
  shift words
  (( CURRENT-- ))
  case $command in
${cases.join('\n')}
  esac
}

# Run the function when zsh autoloads this file from $fpath, not when it is sourced.
if [ "$funcstack[1]" = "_filesift" ]; then
  _filesift "$@"
fi
`;
}

/** The completion command; `commands` is the whole table, this command included. */
export function completionCommand(commands: () => readonly CliCommand[]): CliCommand {
  return defineCommand({
    name: 'completion',
    summary: 'Print a shell completion script: completion bash, completion zsh',
    spec: {
      command: 'filesift completion',
      positional: { name: 'SHELL', description: SHELLS.join(' or '), required: true, complete: SHELLS },
      options: {},
      notes: ['bash: add `source <(filesift completion bash)` to ~/.bashrc', 'zsh:  add `source <(filesift completion zsh)` to ~/.zshrc, after compinit'],
    },
    async run({ positionals }, io) {
      const shell = positionals[0]!;
      if (shell === 'bash') io.stdout.write(bashScript(commands()));
      else if (shell === 'zsh') io.stdout.write(zshScript(commands()));
      else throw new UsageError(`no completion for '${shell}'; say ${SHELLS.join(' or ')}`);
      return EXIT.ok;
    },
  });
}
