/**
 * "Issues found": turns cell results into findings, worst first. Modelled on seed 003's issue
 * analysis (the 'Nexus' POST case: 910 timeouts, 8 requests/s). A finding names the cell, the
 * evidence in numbers, and what to look at.
 */
import type { CellResult } from '../store/results.ts';

export type Severity = 'critical' | 'major' | 'minor';

export interface Finding {
  severity: Severity;
  label: string;
  scenario: string;
  profile: string;
  title: string;
  evidence: string;
}

const ORDER: Record<Severity, number> = { critical: 0, major: 1, minor: 2 };

/** Every finding for the given cells, ordered by severity, then contender, then scenario. */
export function findIssues(cells: CellResult[]): Finding[] {
  const out: Finding[] = [];
  for (const c of cells) {
    const f = (severity: Severity, title: string, evidence: string) =>
      out.push({ severity, label: c.label, scenario: c.scenario, profile: c.profile, title, evidence });
    const tail = c.failure?.logTail ? ` Log tail: ${oneLine(c.failure.logTail)}` : '';
    switch (c.status) {
      case 'build-failed': f('critical', 'build failed', `${c.failure?.reason}. Compiler output: ${oneLine(c.failure?.logTail ?? '')}`); continue;
      case 'start-failed': f('critical', 'failed to start', `${c.failure?.reason}.${tail}`); continue;
      case 'crashed': f('critical', 'crashed under load', `${c.failure?.reason}.${tail}`); break;
      case 'error': f('major', 'load run failed', `${c.failure?.reason}.${tail}`); continue;
      case 'skipped': case 'unsupported': continue; // not the contender's fault: listed under its table
      case 'verify-failed': f('critical', 'verification failed (not measured)', c.verification?.reasons.join('; ') ?? ''); continue;
      default: break;
    }
    if (c.verification?.level === 'warn') f('minor', 'verification warning', c.verification.reasons.join('; '));
    const l = c.load;
    if (!l) continue;
    const bad = l.errors + l.timeouts + l.non2xx;
    if (bad > 0) {
      const ok = l.requests.total - l.non2xx;
      const share = bad / Math.max(1, bad + ok);
      f(share > 0.01 ? 'critical' : 'major', 'errors under load',
        `${l.timeouts} timeouts, ${l.errors} errors, ${l.non2xx} non-2xx against ${ok} good responses ` +
        `(${(share * 100).toFixed(1)}% failed) at ${Math.round(l.requestsPerSec.mean)} req/s; ` +
        `requests stuck in flight point at a handler that never answers (e.g. a body parser waiting for a stream that was already read)`);
    }
    if (l.bodyChecks.mismatched > 0) {
      f('critical', 'wrong bodies under load', `${l.bodyChecks.mismatched} of ${l.bodyChecks.sampled} sampled responses broke the contract; first: ${l.bodyChecks.firstMismatch}`);
    }
  }
  return out.sort((a, b) => ORDER[a.severity] - ORDER[b.severity] || a.label.localeCompare(b.label) || a.scenario.localeCompare(b.scenario));
}

function oneLine(s: string, n = 400): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `…${t.slice(-n)}` : t;
}
