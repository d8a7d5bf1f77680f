// @ts-check
/**
 * The flame graphs of the report's Why section (inlined by exporters/why-html.ts after d3 v7 and
 * d3-flame-graph 5, which set the globals `d3` and `flamegraph`). Plain JavaScript, type-checked
 * through JSDoc (exporters/html/tsconfig.json). Reads the flame data from <script id="flame-data">
 * (per profiled cell: its anchor, CPU ns per request, busy µs of the window and the tree of
 * analysis/flame.ts: `n` name "[bucket] function file:line", `v` inclusive µs, `b` bucket, `c`
 * children) and draws a cell's graph when its <details> is first opened (a closed box has no
 * width). Colour by bucket: the runtime grey, Node's modules blue, the contender's code green,
 * packages warm hues by name. Hovering a frame shows its share of the busy time and ≈ µs of CPU
 * per request (share × the cell's CPU per request); the search box highlights matching frames.
 * Sets body[data-flames-ready="1"] once wired; a cell without data keeps its text.
 */

/**
 * @typedef {{ n: string, v: number, b: string, c: FlameNode[] }} FlameNode
 * @typedef {{ anchor: string, totalNs: number, totalUs: number, tree: FlameNode }} FlameData
 * @typedef {{ data: FlameNode, highlight?: boolean }} FlameDatum  a d3 hierarchy node (search sets `highlight`)
 * @typedef {{ search: (term: string) => void, clear: () => void, resetZoom: () => void }} FlameChart
 */

(() => {
  const g = /** @type {any} */ (window);
  const el = document.getElementById('flame-data');
  if (!el || !g.d3 || !g.flamegraph) return;
  /** @type {FlameData[]} */
  const flames = JSON.parse(el.textContent ?? '[]');

  /** @param {string} s */
  const hash = (s) => {
    let h = 0;
    for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
    return Math.abs(h);
  };
  /** @param {string} bucket */
  const colorOf = (bucket) => {
    if (bucket === '(small)') return '#dee2e6';
    if (bucket.startsWith('(') && bucket !== '(contender code)') return `hsl(210, 8%, ${62 + (hash(bucket) % 16)}%)`;
    if (bucket === '(contender code)') return 'hsl(130, 45%, 55%)';
    if (bucket.startsWith('node:')) return `hsl(${200 + (hash(bucket) % 30)}, 60%, ${62 + (hash(bucket) % 12)}%)`;
    return `hsl(${(hash(bucket) % 55) + 5}, 80%, ${55 + (hash(bucket) % 15)}%)`;
  };

  /** @param {HTMLDetailsElement} box @param {FlameData} f */
  const draw = (box, f) => {
    const holder = /** @type {HTMLElement | null} */ (box.querySelector('.flame'));
    const details = box.querySelector('.flame-details');
    if (!holder) return;
    const width = Math.max(320, holder.clientWidth || 900);
    /** @param {FlameDatum} d */
    const label = (d) => {
      const share = f.totalUs > 0 ? d.data.v / f.totalUs : 0;
      return `${d.data.n}: ${(share * 100).toFixed(1)}% of the busy time, ≈ ${((share * f.totalNs) / 1000).toFixed(2)} µs CPU/request`;
    };
    /** @type {FlameChart} */
    const chart = g.flamegraph
      .default()
      .width(width)
      .cellHeight(16)
      .minFrameSize(1)
      .transitionDuration(250)
      .label(label)
      .setColorMapper(/** @param {FlameDatum} d */ (d) => (d.highlight ? '#e600e6' : colorOf(d.data.b)))
      .setDetailsHandler(
        /** @param {string | null} t */ (t) => {
          if (details) details.textContent = t ?? '';
        },
      );
    g.d3.select(holder).datum(f.tree).call(chart);
    const search = /** @type {HTMLInputElement | null} */ (box.querySelector('.flame-search'));
    search?.addEventListener('input', () => (search.value ? chart.search(search.value) : chart.clear()));
    box.querySelector('.flame-reset')?.addEventListener('click', () => chart.resetZoom());
    box.dataset.drawn = '1';
  };

  for (const f of flames) {
    const box = /** @type {HTMLDetailsElement | null} */ (
      document.querySelector(`details.flame-box[data-flame="${CSS.escape(f.anchor)}"]`)
    );
    if (!box) continue;
    const once = () => {
      if (box.open && !box.dataset.drawn) draw(box, f);
    };
    box.addEventListener('toggle', once);
    once();
  }
  document.body.dataset.flamesReady = '1';
})();
