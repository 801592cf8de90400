import type { ServiceConfig } from '../config.js';
import type { IndexRun } from '../indexing/run.js';
import type { ComponentHealth } from '../status/status.service.js';
import type { AutoModelPull } from './auto-pull.js';
import { activeFusion, strongCosine } from './fusion-profiles.js';
import type { EmbedderManager } from './manager.js';

/** The model's own fusion profile as /api/status/ shows it (the settings may override its weights). */
function fusionStatus(identity: string | null): Record<string, unknown> {
  const { profile, source } = activeFusion(identity, { semantic: null, keyword: null });
  const strong = strongCosine(profile);
  return {
    semantic_weight: profile.semanticWeight,
    keyword_weight: profile.keywordWeight,
    match_bonus: profile.matchBonus,
    floor: profile.floor,
    strong_cosine: Number.isFinite(strong) && strong <= 1 ? Math.round(strong * 1e4) / 1e4 : null,
    source,
  };
}

/** The re-embed run as /api/status/ shows it. */
function reembedStatus(run: IndexRun | null): Record<string, unknown> | null {
  if (!run) return null;
  const finished = run.finishedAt;
  return {
    run_id: run.id,
    state: finished === null ? 'running' : run.signal.aborted ? 'cancelled' : 'completed',
    total: run.total,
    ...run.counts,
    started_at: new Date(run.startedAt).toISOString(),
    finished_at: finished === null ? null : new Date(finished).toISOString(),
  };
}

/**
 * The `embedder` component of /api/status/: which model is active (and why not the configured one), whether
 * it is known to load, the background re-embed after a model change, and an automatic model download.
 */
export function embedderStatus(
  config: Pick<ServiceConfig, 'modelDir' | 'modelPull'>,
  embedders: EmbedderManager,
  reembed: IndexRun | null,
  pull: AutoModelPull | null,
): ComponentHealth {
  const { description, dimension, identity, modelDir } = embedders.active;
  const extra = { reembed: reembedStatus(reembed), pull: pull?.state ?? null };
  if (!description.ok) {
    return { ok: false, ready: false, kind: null, model: null, identity: null, search: 'keyword', reason: description.reason, ...extra };
  }
  // Why the transformer is not used: shown when the user asked for one (a model folder, a pull) or it failed to load.
  const fallback =
    'fallbackReason' in description && description.fallbackReason && (config.modelDir || config.modelPull === 'auto' || modelDir === null)
      ? { fallback_reason: description.fallbackReason }
      : {};
  return {
    ok: true,
    ready: embedders.verified,
    kind: description.kind,
    model: description.model,
    identity,
    dimension,
    search: 'hybrid',
    fusion: fusionStatus(identity),
    ...fallback,
    ...extra,
  };
}
