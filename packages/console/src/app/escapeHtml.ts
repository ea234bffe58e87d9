/**
 * Escapes text for the few places that build HTML strings instead of React elements (ECharts tooltip formatters
 * return HTML). Names and descriptions come from users and nodes, so they are always text, never markup.
 */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: unknown): string {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}
