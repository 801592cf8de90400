/** The screen and its parameters live in the URL's hash (#/search?q=tax), so reloading and Back work. */
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  screen: string;
  params: URLSearchParams;
  /** The hash it was read from: a screen is mounted afresh when it changes (a link, Back, an edited address). */
  hash: string;
}

export function parseHash(hash: string): Route {
  const [screen = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  return { screen: screen || 'search', params: new URLSearchParams(query), hash };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseHash(location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** Updates the current screen's parameters without a new history entry (typing must not flood Back). */
export function replaceParams(screen: string, params: Record<string, string | null>): void {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) query.set(key, value);
  const text = query.toString();
  history.replaceState(null, '', `#/${screen}${text ? `?${text}` : ''}`);
}
