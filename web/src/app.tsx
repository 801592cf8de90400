/**
 * The app's frame: navigation between the screens (hash routes), the token prompt the API client calls on a
 * 401, and the light/dark switch (the system's choice until the person picks one).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { onTokenNeeded } from './api/client.js';
import { useRoute } from './lib/route.js';
import { FiltersScreen } from './screens/filters.js';
import { FoldersScreen } from './screens/folders.js';
import { QueueScreen } from './screens/queue.js';
import { SchedulerScreen } from './screens/scheduler.js';
import { SearchScreen } from './screens/search.js';
import { SettingsScreen } from './screens/settings.js';
import { StatusScreen } from './screens/status.js';

const SCREENS = [
  { id: 'search', label: 'Search', Component: SearchScreen },
  { id: 'folders', label: 'Folders', Component: FoldersScreen },
  { id: 'queue', label: 'Queue', Component: QueueScreen },
  { id: 'scheduler', label: 'Scheduler', Component: SchedulerScreen },
  { id: 'filters', label: 'Filters', Component: FiltersScreen },
  { id: 'settings', label: 'Settings', Component: SettingsScreen },
  { id: 'status', label: 'Status', Component: StatusScreen },
] as const;

type Theme = 'light' | 'dark' | null;
const THEME_KEY = 'filesift.theme';

function useTheme(): [Theme, (t: Theme) => void] {
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem(THEME_KEY) as Theme) ?? null);
  useEffect(() => {
    if (theme) {
      document.documentElement.dataset.theme = theme;
      localStorage.setItem(THEME_KEY, theme);
    } else {
      delete document.documentElement.dataset.theme;
      localStorage.removeItem(THEME_KEY);
    }
  }, [theme]);
  return [theme, setTheme];
}

/** Asks for FILESIFT_API_TOKEN when the service answers 401; the client keeps it for the tab. */
function TokenDialog({ request }: { request: { resolve: (t: string | null) => void } | null }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [value, setValue] = useState('');
  useEffect(() => {
    if (request && dialog.current && !dialog.current.open) dialog.current.showModal();
  }, [request]);
  if (!request) return null;
  const answer = (token: string | null) => {
    dialog.current?.close();
    setValue('');
    request.resolve(token);
  };
  return (
    <dialog ref={dialog} class="token-dialog" aria-labelledby="token-title" onCancel={() => answer(null)}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          answer(value.trim() || null);
        }}
      >
        <h2 id="token-title">API token</h2>
        <p>This service was started with FILESIFT_API_TOKEN. Enter it to continue; it is kept for this tab only.</p>
        <label for="token-input">Token</label>
        <input id="token-input" type="password" autocomplete="off" value={value} onInput={(e) => setValue(e.currentTarget.value)} autoFocus />
        <div class="row">
          <button type="submit">Continue</button>
          <button type="button" class="secondary" onClick={() => answer(null)}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}

export function App() {
  const route = useRoute();
  const [theme, setTheme] = useTheme();
  const [tokenRequest, setTokenRequest] = useState<{ resolve: (t: string | null) => void } | null>(null);
  useEffect(() => {
    onTokenNeeded(
      () =>
        new Promise<string | null>((resolve) =>
          setTokenRequest({
            resolve: (t) => {
              setTokenRequest(null);
              resolve(t);
            },
          }),
        ),
    );
  }, []);
  const current = SCREENS.find((s) => s.id === route.screen) ?? SCREENS[0];
  const dark = theme === 'dark' || (theme === null && matchMedia('(prefers-color-scheme: dark)').matches);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="#/search">
          <img src="/favicon.svg" alt="" width="24" height="24" /> filesift
        </a>
        <nav aria-label="Screens">
          <ul>
            {SCREENS.map((s) => (
              <li key={s.id}>
                <a href={`#/${s.id}`} aria-current={s.id === current.id ? 'page' : undefined}>
                  {s.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="theme secondary" aria-label={dark ? 'Use the light theme' : 'Use the dark theme'} onClick={() => setTheme(dark ? 'light' : 'dark')}>
          {dark ? '☀' : '☾'}
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <current.Component key={route.hash} params={route.params} />
      </main>
      <TokenDialog request={tokenRequest} />
    </>
  );
}
