/**
 * The `new <name>` command: copies contenders/_template to contenders/<name> (its `__NAME__`
 * placeholders replaced) and, for this repository's contenders folder, regenerates the Docker
 * Compose services (compose/gen-compose.ts), then says what to edit next.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { composePaths, writeGenerated } from '../../compose/gen-compose.ts';
import { UserError } from '../core/errors.ts';
import { MANIFEST_FILE } from '../core/manifest.ts';
import { CONTENDERS_DIR } from '../core/paths.ts';
import { writeJsonAtomic } from '../store/result-files.ts';
import { type CliContext, type Globals, helpFooter, SHORT_EXIT_HELP } from './command-kit.ts';

/**
 * Creates contender `name` from the template. Throws UserError for a name that is not lower-case
 * letters, digits and dashes, a missing template, or a folder that already exists.
 */
function newContender(g: Globals, name: string): void {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name))
    throw new UserError(`contender name '${name}' must be lower-case letters, digits and dashes`);
  const template = path.join(g.contendersDir, '_template');
  const dest = path.join(g.contendersDir, name);
  if (!fs.existsSync(template)) throw new UserError(`no template at ${template}`);
  if (fs.existsSync(dest)) throw new UserError(`${dest} already exists; choose another name`);
  fs.cpSync(template, dest, { recursive: true, filter: (src) => !src.includes(`${path.sep}node_modules`) });
  for (const f of fs.readdirSync(dest, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(dest, f);
    if (fs.statSync(file).isFile()) fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replaceAll('__NAME__', name));
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(dest, MANIFEST_FILE), 'utf8'));
  writeJsonAtomic(path.join(dest, MANIFEST_FILE), manifest);
  process.stdout.write(`created ${dest}\n`);
  // Compose services come from the manifests (compose/gen-compose.ts): regenerate them for this
  // repository's contenders, so the new folder is all a contender needs.
  if (path.resolve(g.contendersDir) === CONTENDERS_DIR) {
    try {
      const { written, ports } = writeGenerated(composePaths());
      process.stdout.write(
        `compose: service ${name} on 127.0.0.1:${ports.get(name)}${written.length ? ` (updated ${written.join(' and ')})` : ''}\n`,
      );
    } catch (e) {
      process.stderr.write(
        `warning: compose files not regenerated (${(e as Error).message}); fix that, then run \`node compose/gen-compose.ts\`\n`,
      );
    }
  }
  process.stdout.write(
    `next: edit server.js and ${MANIFEST_FILE}, then \`npx just verify ${name}\`.\n` +
      `Before committing, run \`npm install\` at the repository root: it adds the new workspace to package-lock.json (\`npm ci\` fails without it).\n`,
  );
}

/** Registers `new <name>` on `program`. */
export function registerNew(program: Command, ctx: CliContext): void {
  const c = program
    .command('new')
    .description('copy contenders/_template to a new contender')
    .argument('<name>')
    .action((name: string) => newContender(ctx.globals(), name));
  helpFooter(c, ['npx just new my-stack'], SHORT_EXIT_HELP);
}
