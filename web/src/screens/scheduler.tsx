/**
 * The scheduler: its rules (each type offers exactly the operators and values the API accepts: the editor is
 * built from the PUT schema in /api/openapi.json), with the machine's live readings, each rule's verdict and
 * whether the conditions are met, refreshed every few seconds.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, messageOf, put } from '../api/client.js';
import { requestSchema, type JsonSchema } from '../api/openapi.js';
import type { SchedulerResponseBody } from '../api/types.js';
import { ErrorMessage, Loading, Outcome, Screen } from '../components/ui.js';
import { formatDateTime } from '../lib/format.js';
import { useLoad } from '../lib/hooks.js';

interface RuleType {
  rule: string;
  operators: string[];
  value: JsonSchema;
}

interface DraftRule {
  rule: string;
  operator: string;
  value: number | boolean | string;
  enabled: boolean;
}

interface Draft {
  enabled: boolean;
  combine_mode: string;
  check_interval_seconds: number;
  unavailable_policy: string;
  rules: DraftRule[];
}

async function ruleTypes(): Promise<RuleType[]> {
  const body = await requestSchema('put', '/api/queue/scheduler');
  const variants = body.properties?.rules?.items?.anyOf ?? [];
  return variants.map((v) => ({
    rule: String(v.properties?.rule?.const),
    operators: (v.properties?.operator?.enum ?? []).map(String),
    value: v.properties?.value ?? {},
  }));
}

function defaultValue(schema: JsonSchema): number | boolean | string {
  if (schema.type === 'boolean') return true;
  if (schema.type === 'string') return '22:00-06:00';
  return schema.minimum ?? 0;
}

function draftOf(s: SchedulerResponseBody): Draft {
  return {
    enabled: s.enabled,
    combine_mode: s.combine_mode,
    check_interval_seconds: s.check_interval_seconds,
    unavailable_policy: s.unavailable_policy,
    rules: s.rules.map((r) => ({ rule: r.rule, operator: r.operator, value: r.value, enabled: r.enabled })),
  };
}

export function SchedulerScreen() {
  const live = useLoad(() => get<SchedulerResponseBody>('/api/queue/scheduler'), [], 5000);
  const types = useLoad(ruleTypes);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [saved, setSaved] = useState<string | null>(null);
  const [dirty, setDirty] = useState(false);

  useEffect(() => {
    if (live.data && !dirty) setDraft(draftOf(live.data));
  }, [live.data, dirty]);

  const change = (next: Draft) => {
    setDraft(next);
    setDirty(true);
    setSaved(null);
  };
  const save = async (e: Event) => {
    e.preventDefault();
    if (!draft) return;
    try {
      await put<SchedulerResponseBody>('/api/queue/scheduler', draft);
      setErrors([]);
      setDirty(false);
      setSaved('Saved: the scheduler checks with these rules from now on.');
      live.reload();
    } catch (err) {
      const list = err instanceof ApiError && Array.isArray(err.body?.errors) ? (err.body.errors as string[]) : [messageOf(err)];
      setErrors(list);
    }
  };

  const s = live.data;
  return (
    <Screen title="Scheduler">
      <ErrorMessage message={live.error ?? types.error} />
      {(!s || !draft || !types.data) && !live.error && <Loading what="the scheduler" />}
      {s && (
        <div class="card">
          <p role="status">
            {s.conditions_met ? <strong class="ok">Conditions met</strong> : <strong class="bad">Conditions not met</strong>}
            {s.paused_by_scheduler ? ': the queue is paused by the scheduler' : s.enabled ? '' : ' (the scheduler is off: it never pauses the queue)'}
          </p>
          <p class="muted small">
            {s.detail} · checked {formatDateTime(s.checked_at)}
          </p>
          <h2>Readings of this machine</h2>
          <dl class="figures">
            {Object.entries(s.readings).map(([metric, reading]) => (
              <div key={metric}>
                <dt>{metric.replace(/_/g, ' ')}</dt>
                <dd title={reading.available ? reading.note : reading.reason}>{reading.available ? String(reading.value) : 'unavailable'}</dd>
              </div>
            ))}
          </dl>
        </div>
      )}
      {draft && types.data && (
        <form class="card" onSubmit={save}>
          <h2>Rules</h2>
          <div class="form-grid">
            <label class="check">
              <input type="checkbox" checked={draft.enabled} onChange={(e) => change({ ...draft, enabled: e.currentTarget.checked })} />
              Pause the queue when the conditions are not met
            </label>
            <label>
              Combine
              <select value={draft.combine_mode} onChange={(e) => change({ ...draft, combine_mode: e.currentTarget.value })}>
                <option value="ALL">ALL: every enabled rule must pass</option>
                <option value="ANY">ANY: one enabled rule is enough</option>
              </select>
            </label>
            <label>
              Check every (seconds)
              <input type="number" min={5} max={86400} value={draft.check_interval_seconds} onInput={(e) => change({ ...draft, check_interval_seconds: Number(e.currentTarget.value) })} />
            </label>
            <label>
              A metric this machine cannot read
              <select value={draft.unavailable_policy} onChange={(e) => change({ ...draft, unavailable_policy: e.currentTarget.value })}>
                <option value="fail">fails its rule</option>
                <option value="pass">passes its rule</option>
              </select>
            </label>
          </div>
          <ol class="rules">
            {draft.rules.map((rule, i) => (
              <RuleRow
                key={i}
                index={i}
                rule={rule}
                types={types.data!}
                verdict={dirty ? null : (s?.rules[i] ?? null)}
                onChange={(r) => change({ ...draft, rules: draft.rules.map((x, j) => (j === i ? r : x)) })}
                onRemove={() => change({ ...draft, rules: draft.rules.filter((_, j) => j !== i) })}
              />
            ))}
          </ol>
          <div class="row wrap">
            <button
              type="button"
              class="secondary"
              onClick={() => {
                const first = types.data![0]!;
                change({ ...draft, rules: [...draft.rules, { rule: first.rule, operator: first.operators[0] ?? '', value: defaultValue(first.value), enabled: true }] });
              }}
            >
              Add a rule
            </button>
            <button type="submit" disabled={!dirty}>
              Save
            </button>
            {dirty && (
              <button type="button" class="secondary" onClick={() => setDirty(false)}>
                Discard changes
              </button>
            )}
          </div>
          <Outcome errors={errors} done={saved} />
        </form>
      )}
    </Screen>
  );
}

function RuleRow(props: {
  index: number;
  rule: DraftRule;
  types: RuleType[];
  verdict: SchedulerResponseBody['rules'][number] | null;
  onChange: (r: DraftRule) => void;
  onRemove: () => void;
}) {
  const { rule, types, verdict, onChange, index } = props;
  const type = types.find((t) => t.rule === rule.rule) ?? types[0]!;
  const id = `rule-${index}`;
  return (
    <li class="rule">
      <label>
        <span class="visually-hidden">Rule {index + 1} type</span>
        <select
          id={`${id}-type`}
          value={rule.rule}
          onChange={(e) => {
            const next = types.find((t) => t.rule === e.currentTarget.value)!;
            onChange({ ...rule, rule: next.rule, operator: next.operators[0] ?? '', value: defaultValue(next.value) });
          }}
        >
          {types.map((t) => (
            <option key={t.rule} value={t.rule}>
              {t.rule.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span class="visually-hidden">Rule {index + 1} operator</span>
        <select value={rule.operator} onChange={(e) => onChange({ ...rule, operator: e.currentTarget.value })}>
          {type.operators.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span class="visually-hidden">Rule {index + 1} value</span>
        {type.value.type === 'boolean' ? (
          <select value={String(rule.value)} onChange={(e) => onChange({ ...rule, value: e.currentTarget.value === 'true' })}>
            <option value="true">true (on mains power)</option>
            <option value="false">false</option>
          </select>
        ) : type.value.type === 'string' ? (
          <input type="text" value={String(rule.value)} placeholder="22:00-06:00" pattern={type.value.pattern} onInput={(e) => onChange({ ...rule, value: e.currentTarget.value })} />
        ) : (
          <input type="number" step="any" min={type.value.minimum} max={type.value.maximum} value={Number(rule.value)} onInput={(e) => onChange({ ...rule, value: Number(e.currentTarget.value) })} />
        )}
      </label>
      <label class="check">
        <input type="checkbox" checked={rule.enabled} onChange={(e) => onChange({ ...rule, enabled: e.currentTarget.checked })} /> enabled
      </label>
      <button type="button" class="secondary small" onClick={props.onRemove} aria-label={`Remove rule ${index + 1}`}>
        Remove
      </button>
      <span class="muted small rule-help">{type.value.description}</span>
      {verdict && (
        <span class={`verdict ${verdict.passes ? 'ok' : 'bad'}`}>
          reading {verdict.reading === null ? 'unavailable' : String(verdict.reading)}: {verdict.detail}
        </span>
      )}
    </li>
  );
}
