/**
 * Filters: the mode, the lists of each mode (add and remove patterns, with the API's reasons for a bad one),
 * and "why is this file (not) indexed?": the decision and the pattern that made it.
 */
import { useState } from 'preact/hooks';
import { del, get, messageOf, post, put } from '../api/client.js';
import type { FilterChangeResponse, FilterConfig, FilterMode, FilterTestResponse } from '../api/types.js';
import { ErrorMessage, Loading, Outcome, Screen } from '../components/ui.js';
import { useLoad } from '../lib/hooks.js';

type ListName = 'exclude' | 'include';

const LISTS: Record<FilterMode, { list: ListName; field: keyof FilterConfig; title: string; help: string }[]> = {
  blacklist: [
    { list: 'exclude', field: 'blacklist_exclude', title: 'Excluded', help: 'Every file is indexed unless one of these matches it or a folder above it.' },
    { list: 'include', field: 'blacklist_include', title: 'Included again', help: 'Overrides an exclude pattern for the same file or folder.' },
  ],
  whitelist: [
    { list: 'include', field: 'whitelist_include', title: 'Included', help: 'Only files matching one of these (or inside a matching folder) are indexed.' },
    { list: 'exclude', field: 'whitelist_exclude', title: 'Never', help: 'Excluded even when included.' },
  ],
};

export function FiltersScreen() {
  const config = useLoad(() => get<FilterConfig>('/api/filters/config'));
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const change = async (action: () => Promise<FilterChangeResponse>) => {
    try {
      const answer = await action();
      setError(null);
      setMessage(answer.message);
      config.reload();
      return true;
    } catch (err) {
      setError(messageOf(err));
      setMessage(null);
      return false;
    }
  };

  const c = config.data;
  return (
    <Screen title="Filters">
      <ErrorMessage message={config.error} />
      {!c && !config.error && <Loading what="the filters" />}
      {c && (
        <>
          <fieldset class="card segmented-block">
            <legend>Mode</legend>
            {(['blacklist', 'whitelist'] as const).map((mode) => (
              <label key={mode} class="check">
                <input type="radio" name="filter-mode" checked={c.mode === mode} onChange={() => void change(() => put('/api/filters/config', { mode }))} />
                {mode === 'blacklist' ? 'Blacklist: index everything except what is excluded' : 'Whitelist: index only what is included'}
              </label>
            ))}
          </fieldset>
          <Outcome done={message} />
          <ErrorMessage message={error} />
          <TestPath />
          {LISTS[c.mode].map((l) => (
            <PatternList key={l.field} mode={c.mode} name={l.list} title={l.title} help={l.help} patterns={c[l.field] as string[]} change={change} />
          ))}
          <details class="card">
            <summary>The other mode's lists ({c.mode === 'blacklist' ? 'whitelist' : 'blacklist'}), kept for when you switch</summary>
            {LISTS[c.mode === 'blacklist' ? 'whitelist' : 'blacklist'].map((l) => (
              <p key={l.field} class="small">
                <strong>{l.field}</strong>: {(c[l.field] as string[]).join('  ') || '(empty)'}
              </p>
            ))}
          </details>
          <button type="button" class="secondary" onClick={() => void change(() => post('/api/filters/reset'))}>
            Reset to the defaults
          </button>
        </>
      )}
    </Screen>
  );
}

function PatternList(props: {
  mode: FilterMode;
  name: ListName;
  title: string;
  help: string;
  patterns: string[];
  change: (action: () => Promise<FilterChangeResponse>) => Promise<boolean>;
}) {
  const { mode, name, patterns, change } = props;
  const [pattern, setPattern] = useState('');
  const id = `pattern-${mode}-${name}`;
  const add = async (e: Event) => {
    e.preventDefault();
    if (await change(() => post('/api/filters/pattern', { pattern, list: name, mode }))) setPattern('');
  };
  return (
    <section class="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        {props.title} <span class="muted small">({patterns.length})</span>
      </h2>
      <p class="muted small">{props.help}</p>
      <form class="row" onSubmit={add}>
        <label for={id} class="visually-hidden">
          Add a pattern to {props.title}
        </label>
        <input id={id} type="text" placeholder="*.tmp, drafts/, /private/" value={pattern} spellcheck={false} onInput={(e) => setPattern(e.currentTarget.value)} />
        <button type="submit" class="secondary">
          Add
        </button>
      </form>
      <ul class="patterns">
        {patterns.map((p) => (
          <li key={p}>
            <code>{p}</code>
            <button type="button" class="link" aria-label={`Remove ${p}`} onClick={() => void change(() => del('/api/filters/pattern', { pattern: p, list: name, mode }))}>
              ✕
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function TestPath() {
  const [path, setPath] = useState('');
  const [answer, setAnswer] = useState<FilterTestResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  const test = async (e: Event) => {
    e.preventDefault();
    try {
      setAnswer(await post<FilterTestResponse>('/api/filters/test', { path: path.trim() }));
      setError(null);
    } catch (err) {
      setAnswer(null);
      setError(messageOf(err));
    }
  };
  return (
    <form class="card" onSubmit={test}>
      <label for="test-path">Why is this file (not) indexed?</label>
      <div class="row">
        <input id="test-path" type="text" placeholder="/home/me/project/.env or project/notes.md" value={path} spellcheck={false} onInput={(e) => setPath(e.currentTarget.value)} />
        <button type="submit">Test</button>
      </div>
      <ErrorMessage message={error} />
      {answer && (
        <div role="status" class="test-answer">
          <p>
            <strong class={answer.indexed ? 'ok' : 'bad'}>{answer.indexed ? 'Indexed' : 'Not indexed'}</strong>: {answer.reason}
          </p>
          <p class="muted small">
            {answer.kind} · judged from {answer.root ?? '(no folder: a relative path)'}
            {answer.watched ? ' (watched)' : ''} as <code>{answer.relative_path || '.'}</code>
            {answer.decided_by ? ` · decided by ${answer.decided_by.list} pattern '${answer.decided_by.pattern}' matching '${answer.decided_by.matched_path}'` : ''}
          </p>
        </div>
      )}
    </form>
  );
}
