import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger };

/** One JSON logger for the service; children carry the actor name. Logs go to stderr, keeping stdout clean. */
export function createLogger(level: LogLevel): Logger {
  return pino({ level, base: { service: 'filesift' } }, pino.destination(2));
}
