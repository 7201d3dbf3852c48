/** Kubernetes' `duration.HumanDuration` (apimachinery/pkg/util/duration): `45s`, `5m30s`, `3h`, `2d4h`. */
export function humanDuration(ms: number): string {
  if (ms < -1000) return '<invalid>';
  if (ms < 0) return '0s';
  const seconds = Math.floor(ms / 1000);
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const days = Math.floor(hours / 24) % 365;
  if (hours < 24 * 365 * 8) return days === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${days}d`;
  return `${Math.floor(hours / 24 / 365)}y`;
}
