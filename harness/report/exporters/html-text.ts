/**
 * The HTML report's text helpers, shared by its section modules: escaping (`esc`), the report's
 * Markdown-style inline code as <code> (`md`) and a sortable table header cell (`th`).
 */

/** HTML-escapes text for element content and attribute values. */
export function esc(s: unknown): string {
  return String(s ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Markdown-style inline code (`x`) of the report's sentences → <code>, the rest escaped. */
export function md(s: string): string {
  return esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/** A sortable header cell: a button inside the <th> (keyboard: Tab, Enter/Space). */
export const th = (label: string, num = false, sorted: 'ascending' | 'none' = 'none') =>
  `<th${num ? ' class="num"' : ''} aria-sort="${sorted}"><button type="button">${esc(label)}</button></th>`;
