/** The scheduler actor's public surface: schemas and validation, readings, evaluation, the actor. */
export * from '../../settings/scheduler-schema.js';
export * from './validate.js';
export * from './config.js';
export * from './readings.js';
export * from './cpu-idle.js';
export * from './evaluate.js';
export * from './scheduler.js';
export * from './view.js';
