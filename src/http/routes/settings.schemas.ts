/** The /api/settings endpoints: the settings object is the settings schema itself (settings/schema.ts). */
import Type, { type Static } from '#typebox';
import { settingDefinitions, SettingsSchema } from '../../settings/schema.js';
import type { Operation } from './common.schemas.js';

/** PUT /api/settings/: any of the dotted keys, each with its own schema (the service checks them again, naming the key). */
export const SettingsUpdateBody = Type.Object(
  Object.fromEntries([...settingDefinitions.values()].map((d) => [d.key, Type.Optional(d.schema)])),
  { additionalProperties: false, minProperties: 1, title: 'SettingsUpdate', description: 'A partial update with dotted keys, e.g. {"queue.cooldown_seconds": 2}' },
);

export type SettingsBody = Static<typeof SettingsSchema>;

export const settingsOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/settings',
    tag: 'settings',
    summary: 'The settings',
    answers: { 200: { description: 'Grouped by section', schema: SettingsSchema } },
  },
  {
    method: 'put',
    path: '/api/settings',
    tag: 'settings',
    summary: 'Change settings',
    description:
      'A partial update with dotted keys; applies at once and persists. If any key is unknown or any value invalid, nothing ' +
      'changes and the 400 lists every problem in `errors`.',
    body: SettingsUpdateBody,
    answers: { 200: { description: 'The full updated settings', schema: SettingsSchema } },
  },
  {
    method: 'get',
    path: '/api/settings/defaults',
    tag: 'settings',
    summary: 'The default settings',
    answers: { 200: { description: 'In the shape of GET /api/settings/', schema: SettingsSchema } },
  },
];
