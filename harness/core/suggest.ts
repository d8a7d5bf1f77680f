/**
 * "Did you mean …?" for mistyped names (contenders, scenarios, profiles, commands), from the
 * Levenshtein edit distance (npm `fastest-levenshtein`, pinned). A candidate is suggested when
 * its distance is at most max(2, a third of the longer name), or when one name contains the
 * other (`nest` → `nestjs-express-axios`); the closest come first, and a match that differs only in
 * case stands alone.
 */
import { distance } from 'fastest-levenshtein';

/**
 * Up to `max` (default 3) entries of `valid` close to `name`, closest first (ties in `valid`'s
 * order). Case-insensitive. Empty when nothing is close.
 */
export function suggest(name: string, valid: readonly string[], max = 3): string[] {
  const n = name.toLowerCase();
  if (!n) return [];
  return valid
    .map((v, i) => {
      const c = v.toLowerCase();
      const d = distance(n, c);
      const limit = Math.max(2, Math.floor(Math.max(n.length, c.length) / 3));
      const contains = n.length >= 3 && (c.includes(n) || n.includes(c));
      return { v, i, d: contains ? Math.min(d, limit) : d, ok: d <= limit || contains };
    })
    .filter((x) => x.ok && x.v !== name)
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .filter((x, _, all) => (all[0]?.d ?? 0) > 0 || x.d === 0)
    .slice(0, max)
    .map((x) => x.v);
}

/** " Did you mean 'a'?" / " Did you mean 'a' or 'b'?" or '' when nothing is close. */
export function didYouMean(name: string, valid: readonly string[]): string {
  const s = suggest(name, valid);
  if (!s.length) return '';
  const q = s.map((x) => `'${x}'`);
  return ` Did you mean ${q.length === 1 ? q[0] : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`}?`;
}
