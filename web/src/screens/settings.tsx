/**
 * Settings: a form made from the settings schema the service publishes (GET /api/openapi.json), so every key,
 * range, choice and description is the API's own; a change is sent as dotted keys and the API's validation
 * messages appear beside the fields they name.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, messageOf, put } from '../api/client.js';
import { answerSchema, type JsonSchema } from '../api/openapi.js';
import type { SettingsBody } from '../api/types.js';
import { ErrorMessage, Loading, Outcome, Screen } from '../components/ui.js';
import { useLoad } from '../lib/hooks.js';

type Values = Record<string, unknown>;

/** The dotted keys of the settings, with their schemas (arrays, i.e. the scheduler's rules, have their own screen). */
function fieldsOf(schema: JsonSchema): { section: string; fields: { key: string; name: string; schema: JsonSchema }[] }[] {
  return Object.entries(schema.properties ?? {}).map(([section, sectionSchema]) => ({
    section,
    fields: Object.entries(sectionSchema.properties ?? {})
      .filter(([, s]) => s.type !== 'array')
      .map(([name, s]) => ({ key: `${section}.${name}`, name, schema: s })),
  }));
}

function flatten(settings: SettingsBody): Values {
  const out: Values = {};
  for (const [section, values] of Object.entries(settings)) for (const [name, value] of Object.entries(values as Values)) out[`${section}.${name}`] = value;
  return out;
}

/** The choices of an enum or a union of constants; null for anything else. */
function choices(schema: JsonSchema): unknown[] | null {
  if (schema.enum) return schema.enum;
  if (schema.anyOf?.every((s) => s.const !== undefined)) return schema.anyOf.map((s) => s.const);
  return null;
}

/** The string branch of `string | null`. */
function nullableString(schema: JsonSchema): JsonSchema | null {
  const branch = schema.anyOf?.find((s) => s.type === 'string');
  return branch && schema.anyOf?.some((s) => s.type === 'null') ? branch : null;
}

export function SettingsScreen() {
  const settings = useLoad(() => get<SettingsBody>('/api/settings'));
  const schema = useLoad(() => answerSchema('get', '/api/settings'));
  const [draft, setDraft] = useState<Values>({});
  const [errors, setErrors] = useState<string[]>([]);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (settings.data) setDraft(flatten(settings.data));
  }, [settings.data]);

  const current = settings.data ? flatten(settings.data) : {};
  const changed = Object.keys(draft).filter((k) => JSON.stringify(draft[k]) !== JSON.stringify(current[k]));

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      await put<SettingsBody>('/api/settings', Object.fromEntries(changed.map((k) => [k, draft[k]])));
      setErrors([]);
      setSaved(`Saved ${changed.length} setting${changed.length === 1 ? '' : 's'}; they apply now.`);
      settings.reload();
    } catch (err) {
      setSaved(null);
      setErrors(err instanceof ApiError && Array.isArray(err.body?.errors) ? (err.body.errors as string[]) : [messageOf(err)]);
    } finally {
      setBusy(false);
    }
  };

  const errorFor = (key: string) => errors.find((m) => m.startsWith(`${key} `) || m.startsWith(`${key}:`)) ?? null;
  const unplaced = errors.filter((m) => !Object.keys(draft).some((k) => m.startsWith(`${k} `) || m.startsWith(`${k}:`)));

  return (
    <Screen title="Settings">
      <ErrorMessage message={settings.error ?? schema.error} />
      {(!settings.data || !schema.data) && !settings.error && !schema.error && <Loading what="the settings" />}
      {settings.data && schema.data && (
        <form onSubmit={save} noValidate>
          {fieldsOf(schema.data).map(({ section, fields }) => (
            <fieldset class="card" key={section}>
              <legend>{section}</legend>
              <div class="form-grid">
                {fields.map((f) => (
                  <Field key={f.key} id={f.key} schema={f.schema} value={draft[f.key]} error={errorFor(f.key)} onChange={(v) => setDraft({ ...draft, [f.key]: v })} />
                ))}
              </div>
              {section === 'scheduler' && (
                <p class="muted small">
                  The scheduler's rules are edited on <a href="#/scheduler">the Scheduler screen</a>.
                </p>
              )}
            </fieldset>
          ))}
          <div class="row sticky-actions">
            <button type="submit" disabled={busy || changed.length === 0}>
              {changed.length === 0 ? 'No changes' : `Save ${changed.length} change${changed.length === 1 ? '' : 's'}`}
            </button>
            {changed.length > 0 && (
              <button type="button" class="secondary" onClick={() => setDraft(current)}>
                Discard
              </button>
            )}
          </div>
          <Outcome
            errors={unplaced.length > 0 || errors.length === 0 ? unplaced : [`Nothing was changed: ${errors.length} setting${errors.length === 1 ? ' is' : 's are'} not valid (see above).`]}
            done={saved}
          />
        </form>
      )}
    </Screen>
  );
}

function Field({ id, schema, value, error, onChange }: { id: string; schema: JsonSchema; value: unknown; error: string | null; onChange: (v: unknown) => void }) {
  const help = `${id}-help`;
  const described = error ? `${id}-error` : help;
  const label = id.split('.')[1]!.replace(/_/g, ' ');
  const options = choices(schema);
  const stringOrNull = nullableString(schema);
  let input;
  if (schema.type === 'boolean') {
    return (
      <div class="field">
        <label class="check">
          <input id={id} type="checkbox" checked={value === true} aria-describedby={described} onChange={(e) => onChange(e.currentTarget.checked)} /> {label}
        </label>
        <p class="muted small" id={help}>
          {schema.description}
        </p>
        <ErrorMessage message={error} id={`${id}-error`} />
      </div>
    );
  }
  if (options) {
    input = (
      <select id={id} value={String(value)} aria-describedby={described} onChange={(e) => onChange(options.find((o) => String(o) === e.currentTarget.value))}>
        {options.map((o) => (
          <option key={String(o)} value={String(o)}>
            {String(o)}
          </option>
        ))}
      </select>
    );
  } else if (schema.type === 'number' || schema.type === 'integer') {
    // An empty or partial number is sent as typed: the API says what is wrong with it.
    input = (
      <input
        id={id}
        type="number"
        inputMode="decimal"
        step={schema.type === 'integer' ? 1 : 'any'}
        min={schema.minimum}
        max={schema.maximum}
        value={value === null || value === undefined ? '' : String(value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described}
        onInput={(e) => onChange(e.currentTarget.value === '' ? null : Number(e.currentTarget.value))}
      />
    );
  } else {
    const s = stringOrNull ?? schema;
    input = (
      <input
        id={id}
        type="text"
        value={value === null || value === undefined ? '' : String(value)}
        placeholder={stringOrNull ? 'none' : undefined}
        maxLength={s.maxLength}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described}
        onInput={(e) => onChange(stringOrNull && e.currentTarget.value === '' ? null : e.currentTarget.value)}
      />
    );
  }
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {input}
      <p class="muted small" id={help}>
        {schema.description}
      </p>
      <ErrorMessage message={error} id={`${id}-error`} />
    </div>
  );
}
