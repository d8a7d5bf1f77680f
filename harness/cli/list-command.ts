/**
 * The `list` command: the contenders (with their variants and tags), the scenarios and the load
 * profiles, one a line, on stdout.
 */
import { EXIT } from '../core/exit-codes.ts';
import { loadScenarios } from '../contract/scenarios.ts';
import { loadManifestsLenient } from '../core/manifest.ts';
import { terminalSafe } from '../core/terminal-text.ts';
import type { Command } from 'commander';
import { DEFAULT_PROFILE, measuredSeconds, PROFILES, type Profile } from '../core/profiles.ts';
import { type CliContext, type Globals, helpFooter, SHORT_EXIT_HELP } from './command-kit.ts';

/** A profile's load shape in one phrase, e.g. "native: 100 connections, pipelining 1, 1 s warm-up, 1 s measured". */
function describeProfile(p: Profile): string {
  const shape =
    p.driver !== 'k6'
      ? `${p.connections} connections, pipelining ${p.pipelining}`
      : p.executor === 'ramping-vus'
        ? `ramping-vus to ${Math.max(...(p.stages ?? []).map((x) => x.target))} VUs`
        : p.executor === 'constant-vus'
          ? `${p.vus} constant VUs`
          : `constant-arrival-rate (${p.rate}), ≤ ${p.vus} VUs`;
  return `${p.driver}: ${shape}, ${p.warmupS} s warm-up, ${measuredSeconds(p)} s measured`;
}

/**
 * Writes the contenders (a bad contender folder as an error line among them), scenarios and
 * profiles to stdout; exit 2 afterwards when a folder was bad. Throws UserError on a bad scenario file.
 */
function listAll(g: Globals): void {
  const scenarios = loadScenarios(g.scenariosDir);
  const { manifests, errors } = loadManifestsLenient(
    g.contendersDir,
    scenarios.map((s) => s.name),
  );
  const out: string[] = ['Contenders:'];
  for (const m of manifests) {
    out.push(
      `  ${m.name.padEnd(24)} ${m.displayName} [${Object.entries(m.tags)
        .map(([k, v]) => `${k}: ${v}`)
        .join(
          ', ',
        )}]${m.composeOnly ? ` — compose-only: \`just compose-up ${m.name}\`, then bench with --url` : ''}${m.requires.length ? ` (requires ${m.requires.join(', ')})` : ''}`,
    );
    for (const [v, spec] of Object.entries(m.variants))
      out.push(`  ${`${m.name} +${v}`.padEnd(24)} variant: ${spec.description}`);
  }
  // A bad folder does not hide the good ones: a line for it here, its error on stderr.
  for (const e of errors)
    out.push(`  ! ${e.message.split('\n')[0]?.split(': ')[0] ?? ''}: not listed (see the error below)`);
  out.push('', 'Scenarios:');
  for (const s of scenarios)
    out.push(
      `  ${s.name.padEnd(14)} ${s.request.method.padEnd(4)} ${s.request.path.padEnd(24)} ${s.title} (${s.source})`,
    );
  out.push('', 'Profiles:');
  for (const p of PROFILES)
    out.push(
      `  ${p.name.padEnd(14)} ${describeProfile(p)} — ${p.description} (${p.source})${p.name === DEFAULT_PROFILE ? ' [default]' : ''}`,
    );
  process.stdout.write(`${terminalSafe(out.join('\n'))}\n`); // manifests are contender text
  for (const e of errors) process.stderr.write(`error: ${terminalSafe(e.message)}\n`);
  if (errors.length) process.exitCode = EXIT.usage;
}

/** Registers `list` on `program`. */
export function registerList(program: Command, ctx: CliContext): void {
  const c = program
    .command('list')
    .description('contenders, scenarios and profiles')
    .action(() => listAll(ctx.globals()));
  helpFooter(c, ['npx just list'], SHORT_EXIT_HELP);
}
