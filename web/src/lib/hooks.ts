import { useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from '../api/client.js';

/** `value`, once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads something from the API and keeps it; `reload()` fetches again (a newer answer always wins over an
 * older one still in flight). `refreshMs` reloads on a timer while mounted.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = [], refreshMs = 0): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: string | null; loading: boolean }>({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    const id = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    loader.current().then(
      (data) => id === latest.current && setState({ data, error: null, loading: false }),
      (err: unknown) => id === latest.current && setState((s) => ({ data: s.data, error: messageOf(err), loading: false })),
    );
  }, [...deps, tick]);
  useEffect(() => {
    if (refreshMs <= 0) return;
    const timer = setInterval(() => setTick((t) => t + 1), refreshMs);
    return () => clearInterval(timer);
  }, [refreshMs]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

/** Calls `fn` at most once per `ms` (the last call of a burst always runs). */
export function useThrottled(fn: () => void, ms: number): () => void {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  return () => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      saved.current();
    }, ms);
  };
}
