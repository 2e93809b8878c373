/** '30s' | '5m' | '2h' | '1500ms' | '45' (seconds) -> ms; undefined when malformed. */
export function parseDuration(s: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(s.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return Math.round(n * (unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000));
}
