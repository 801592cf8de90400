/** Small pieces every screen uses: messages, a progress bar, a copy button, a page heading. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

export function ErrorMessage({ message, id }: { message: string | null; id?: string }) {
  if (!message) return null;
  return (
    <p class="error" role="alert" id={id}>
      {message}
    </p>
  );
}

/** What a form's submission came to: the API's messages (one a line), or what was done. */
export function Outcome({ errors = [], done }: { errors?: readonly string[]; done: string | null }) {
  return (
    <>
      {errors.length > 0 && (
        <ul class="error" role="alert">
          {errors.map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      )}
      {done && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
    </>
  );
}

export function Progress({ value, max, label }: { value: number; max: number; label: string }) {
  const percent = max > 0 ? Math.min(100, (100 * value) / max) : 0;
  return (
    <div class="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={max || undefined} aria-valuenow={max > 0 ? value : undefined}>
      <div class="progress-fill" style={{ width: `${percent}%` }} />
    </div>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('Copied');
    } catch {
      setCopied('Copy failed: select the path instead');
    }
    setTimeout(() => setCopied(null), 2000);
  };
  return (
    <button type="button" class="secondary" onClick={copy}>
      {copied ?? label}
    </button>
  );
}

export function Screen({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="screen" aria-labelledby="screen-title">
      <div class="screen-head">
        <h1 id="screen-title">{title}</h1>
        {actions}
      </div>
      {children}
    </section>
  );
}

export function Loading({ what }: { what: string }) {
  return <p class="muted">Loading {what}…</p>;
}
