/**
 * Flame graphs of a profiled window (`just why`): a cell's V8 call tree, cut
 * to the measured window, as folded stacks small enough to commit (`flameStacks`), and folded
 * stacks back into the nested tree that d3-flame-graph draws (`flameTree`).
 *
 * Time: each sample's self time in the window (analysis/cpu-profile.ts `selfTimes`: a sample lasts
 * until the next one; only its part inside the window counts), µs, main thread only, `(idle)` left
 * out (the flame graph shows where the busy time goes, the same denominator as the buckets' shares).
 *
 * Trimming (`FLAME_MIN_SHARE`, 0.5%): a call-tree node whose inclusive time is below 0.5% of the
 * window's busy time is not kept; the time of every such child of a kept node goes to one
 * `[(small)] N frames under 0.5%` child, so a kept frame's width is exact and nothing is lost
 * (Σ of the stacks = the busy time, up to the rounding to whole µs). With 0.5% at most 200 nodes
 * per depth survive, which keeps a cell's file at a few to a few hundred KB (deep stacks such as
 * LoopBack 4's are the large ones).
 *
 * Frame names: `[<bucket>] <function> <file>:<line>` (the bucket is cpu-profile.ts `bucketOf`'s, so
 * the report can colour by package; the file is shortened to the part after the package, the
 * contender folder or `node:`; lines are 1-based), `[<bucket>] <function>` for runtime frames.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FoldedStack } from '../store/flame-store.ts';
import {
  type AttributionContext,
  bucketOf,
  type CallFrame,
  type CpuProfile,
  selfTimes,
  type Window,
} from './cpu-profile.ts';

/** The trimming share: call-tree nodes under 0.5% of the busy time are folded into `[(small)]`. */
export const FLAME_MIN_SHARE = 0.005;

/** The bucket name of the folded-away frames. */
export const SMALL_BUCKET = '(small)';

/** Where a frame's code is, short: `lib/router/index.js:12` inside a package, `_http_server:3` for node:. */
function where(f: CallFrame, bucket: string, ctx: AttributionContext): string {
  if (f.url === '') return '';
  const line = f.lineNumber >= 0 ? `:${f.lineNumber + 1}` : '';
  if (f.url.startsWith('node:')) return `${f.url.slice(5)}${line}`;
  let file = f.url;
  try {
    if (file.startsWith('file://')) file = fileURLToPath(file);
  } catch {
    return `${f.url}${line}`;
  }
  const nm = file.lastIndexOf(`node_modules/${bucket}/`);
  if (nm >= 0) return `${file.slice(nm + 'node_modules/'.length + bucket.length + 1)}${line}`;
  if (ctx.contenderDir && file.startsWith(`${ctx.contenderDir.replace(/\/+$/, '')}/`))
    return `${path.relative(ctx.contenderDir, file)}${line}`;
  return `${path.basename(file)}${line}`;
}

/** A frame's name in the folded stacks and the flame graph (module comment). */
export function frameName(f: CallFrame, ctx: AttributionContext = {}): string {
  const { bucket } = bucketOf(f, ctx);
  const fn = f.functionName || '(anonymous)';
  if (fn === bucket) return `[${bucket}]`;
  const at = where(f, bucket, ctx);
  return `[${bucket}] ${fn}${at ? ` ${at}` : ''}`;
}

interface Tree {
  id: number;
  children: Tree[];
  self: number;
  total: number;
}

/** The profile's call tree with self and inclusive µs in the window; `(idle)` nodes count 0. */
function callTree(
  p: CpuProfile,
  window: Window | undefined,
): { root: Tree; byId: Map<number, CpuProfile['nodes'][number]> } {
  const self = selfTimes(p, window);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const childIds = new Set(p.nodes.flatMap((n) => n.children ?? []));
  const rootNode = p.nodes.find((n) => !childIds.has(n.id)) ?? p.nodes[0];
  const seen = new Set<number>();
  const build = (id: number): Tree => {
    seen.add(id);
    const n = byId.get(id);
    const idle = n?.callFrame.functionName === '(idle)' && n.callFrame.url === '';
    const t: Tree = { id, children: [], self: idle ? 0 : (self.get(id) ?? 0), total: 0 };
    for (const c of n?.children ?? []) if (!seen.has(c) && byId.has(c)) t.children.push(build(c));
    t.total = t.self + t.children.reduce((s, c) => s + c.total, 0);
    return t;
  };
  return { root: build(rootNode?.id ?? 0), byId };
}

/**
 * The folded stacks of a profile in a window (module comment), largest first, and their total, µs.
 * `minShare` defaults to FLAME_MIN_SHARE. Stacks whose time rounds to 0 µs are left out. Never
 * throws on a checked profile (parseCpuProfile's checks: unique ids, samples naming nodes).
 */
export function flameStacks(
  p: CpuProfile,
  ctx: AttributionContext = {},
  window?: Window,
  minShare = FLAME_MIN_SHARE,
): { stacks: FoldedStack[]; totalUs: number } {
  const { root, byId } = callTree(p, window);
  const min = root.total * minShare;
  const acc = new Map<string, number>();
  const add = (frames: string[], us: number) => {
    const k = frames.join(';');
    acc.set(k, (acc.get(k) ?? 0) + us);
  };
  const walk = (t: Tree, frames: string[]) => {
    if (t.self > 0 && frames.length) add(frames, t.self);
    const small = t.children.filter((c) => c.total < min && c.total > 0);
    if (small.length) {
      const us = small.reduce((s, c) => s + c.total, 0);
      add(
        [
          ...frames,
          `[${SMALL_BUCKET}] ${small.length} frame${small.length === 1 ? '' : 's'} under ${+(minShare * 100).toFixed(3)}%`,
        ],
        us,
      );
    }
    for (const c of t.children)
      if (c.total >= min && c.total > 0) {
        const n = byId.get(c.id);
        walk(c, [...frames, n ? frameName(n.callFrame, ctx) : `(node ${c.id})`]);
      }
  };
  walk(root, []);
  const stacks = [...acc]
    .map(([k, us]) => ({ frames: k.split(';'), us: Math.round(us) }))
    .filter((s) => s.us > 0)
    .sort((a, b) => b.us - a.us || (a.frames.join(';') < b.frames.join(';') ? -1 : 1));
  return { stacks, totalUs: stacks.reduce((s, x) => s + x.us, 0) };
}

/**
 * A node of the tree d3-flame-graph draws, in its compact form (`n` name, `v` value, `c`
 * children; d3-flame-graph 5 reads these keys): `v` is the inclusive µs, `b` the bucket (for colour).
 */
export interface FlameNode {
  n: string;
  v: number;
  b: string;
  c: FlameNode[];
}

/** The bucket of a frame name `[bucket] …` ('' when it has none). */
export function bucketOfName(name: string): string {
  return /^\[([^\]]*)\]/.exec(name)?.[1] ?? '';
}

/**
 * Folded stacks → the nested tree (inclusive µs per node, children merged by name and sorted by
 * name, as flame graphs are), under a root named `root`.
 */
export function flameTree(stacks: readonly FoldedStack[], root = 'all'): FlameNode {
  const top: FlameNode = { n: root, v: 0, b: '', c: [] };
  const index = new Map<FlameNode, Map<string, FlameNode>>();
  for (const s of stacks) {
    let node = top;
    node.v += s.us;
    for (const f of s.frames) {
      const kids = index.get(node) ?? new Map<string, FlameNode>();
      index.set(node, kids);
      let next = kids.get(f);
      if (!next) {
        next = { n: f, v: 0, b: bucketOfName(f), c: [] };
        kids.set(f, next);
        node.c.push(next);
      }
      next.v += s.us;
      node = next;
    }
  }
  const sort = (n: FlameNode) => {
    n.c.sort((a, b) => (a.n < b.n ? -1 : a.n > b.n ? 1 : 0));
    for (const c of n.c) sort(c);
  };
  sort(top);
  return top;
}
