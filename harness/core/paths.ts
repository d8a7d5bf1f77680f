/**
 * Where the repository's folders are. Every default can be overridden (tests point the harness
 * at fixture contenders and a temporary results folder).
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Absolute path of the repository root (the folder holding package.json). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CONTENDERS_DIR = path.join(ROOT, 'contenders');
export const SCENARIOS_DIR = path.join(ROOT, 'scenarios');
export const RESULTS_DIR = path.join(ROOT, 'results');
