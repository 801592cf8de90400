/** Converts what either engine returns for a timestamp (Date, or text) to ISO 8601 with zone, or null. */
export function toIso(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const date = value instanceof Date ? value : new Date(String(value));
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** ISO 8601 without zone (UTC wall time), as the API shows watch job timestamps: 2026-11-22T14:02:27.542. */
export function toIsoNoZone(value: unknown): string | null {
  const iso = toIso(value);
  return iso ? iso.replace(/Z$/, '') : null;
}
