/** The commands of `filesift` other than `serve` (which the entry point, src/cli.ts, adds: it starts the service). */
import { completionCommand } from './completion.js';
import { filesCommand } from './files.js';
import { healthCommand } from './health.js';
import type { CliCommand } from './program.js';
import { pullModelCommand } from './pull-model.js';
import { queueCommand } from './queue.js';
import { searchCommand } from './search.js';
import { statusCommand } from './status.js';
import { indexCommand, unwatchCommand, watchCommand } from './watch.js';

/** In the order `filesift --help` lists them; `serve` goes first, the completion command last. */
export function clientCommands(serve: CliCommand): CliCommand[] {
  const commands: CliCommand[] = [serve, searchCommand, statusCommand, watchCommand, unwatchCommand, indexCommand, queueCommand, filesCommand, pullModelCommand, healthCommand];
  commands.push(completionCommand(() => commands));
  return commands;
}
