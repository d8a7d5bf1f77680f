// @ts-check
/**
 * The browser script of results/leaderboard.html (inlined by exporters/html.ts, after ECharts).
 * Plain JavaScript, type-checked through JSDoc (`just check` runs tsc on it with
 * exporters/html/tsconfig.json). It reads the page data from <script id="bench-data">, draws
 * the charts of the visible tables, and wires the reader's controls: contender filter and
 * highlight, scenario/profile/driver/Node filters (kept in the URL hash), sortable tables
 * (buttons in the headers: mouse or keyboard), issue chips that count the visible findings, and
 * the compare view of two runs. A capacity table also gets a latency-versus-rate
 * chart: small multiples, one panel per contender on shared axes, p99 (log axis) against the
 * offered open-loop rate as its median curve (its steps binned by rate), the SLO dashed. Sets body[data-ready="1"] when done.
 */

/**
 * @typedef {{ label: string, rank: number | null, status: string, failed: boolean, otherRun: boolean,
 *   clientBound: boolean, atLeast: boolean, noisy: boolean, rps: number | null, lo: number | null, hi: number | null,
 *   interval: string, p50: number | null, p99: number | null, cpuAvg: number | null, cpuPeak: number | null,
 *   cpuCap: number | null, rssAvg: number | null, rssPeak: number | null, eff: number | null,
 *   effFrom: string, pct: number | null, pctLo: number | null, pctHi: number | null, pctInterval: string }} PageRow
 * @typedef {{ label: string, points: [number, number, number, number][] }} PageCurve
 *   one contender's median curve, by rate: [offered requests/s, p99 ms, steps, steps that held the SLO]
 * @typedef {{ slo: number, curves: PageCurve[] }} PageCapacity
 * @typedef {{ id: string, scenario: string, profile: string, driver: string, node: string, runId: string,
 *   baseline: string, rows: PageRow[], capacity: PageCapacity | null }} PageTable
 * @typedef {{ runId: string, key: string, label: string, scenario: string, shape: string, figure: number,
 *   lo: number | null, hi: number | null, interval: string }} PageRatio
 * @typedef {{ runId: string, startedAt: string, machine: string }} PageRun
 * @typedef {{ contenders: string[], tables: PageTable[], ratios: PageRatio[], runs: PageRun[] }} PageData
 * @typedef {import('echarts').EChartsOption} Option
 * @typedef {import('echarts').ECharts} Chart
 * @typedef {{ echarts: typeof import('echarts') }} WithECharts
 */

(() => {
  const echarts = /** @type {WithECharts} */ (/** @type {unknown} */ (window)).echarts;
  const dataEl = document.getElementById('bench-data');
  /** @type {PageData} */
  const data = JSON.parse(dataEl?.textContent ?? '{"contenders":[],"tables":[],"ratios":[],"runs":[]}');

  const PALETTE = [
    '#2f6fdb',
    '#e8590c',
    '#2b8a3e',
    '#c2255c',
    '#7048e8',
    '#0b7285',
    '#a07a00',
    '#5c940d',
    '#d6336c',
    '#495057',
    '#1098ad',
    '#f08c00',
    '#364fc7',
    '#9c36b5',
    '#087f5b',
    '#e03131',
  ];
  /** @param {string} label */
  const color = (label) => PALETTE[Math.max(0, data.contenders.indexOf(label)) % PALETTE.length] ?? '#1d2430';
  /** @param {number} n */
  const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
  /** @param {number} n */
  const fmtMs = (n) => (n >= 100 ? fmtInt(n) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
  /** @param {string} s */
  const esc = (s) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  /** @param {number} v */
  const kFmt = (v) => (v >= 1000 ? `${v / 1000}k` : String(v));
  const narrow = () => window.innerWidth < 600;
  const font = { fontFamily: 'system-ui, -apple-system, Segoe UI, Roboto, Arial, sans-serif' };

  /** @template {Element} T @param {string} sel @param {ParentNode} [root] @returns {T[]} */
  const all = (sel, root = document) => /** @type {T[]} */ ([...root.querySelectorAll(sel)]);

  for (const el of all('.swatch')) {
    const s = /** @type {HTMLElement} */ (el);
    s.style.background = color(s.dataset.label ?? '');
  }

  // ---- state ------------------------------------------------------------------------------
  const FILTERS = /** @type {const} */ ([
    ['f-scenario', 'scenario'],
    ['f-profile', 'profile'],
    ['f-driver', 'driver'],
    ['f-node', 'node'],
  ]);
  /** @param {string} id */
  const select = (id) => /** @type {HTMLSelectElement | null} */ (document.getElementById(id));
  const boxes = /** @type {HTMLInputElement[]} */ (all('input[name="contender"]'));
  const highlightSel = select('f-highlight');

  /** The contenders currently shown. */
  const shownContenders = () => new Set(boxes.filter((b) => b.checked).map((b) => b.value));
  const highlighted = () => highlightSel?.value ?? '';

  // ---- charts -----------------------------------------------------------------------------
  /** @type {Map<HTMLElement, Chart>} */
  const charts = new Map();

  /** @param {PageRow[]} rows */
  const catAxis = (rows) => ({
    type: /** @type {const} */ ('category'),
    data: rows.map((r) => r.label),
    inverse: true,
    axisTick: { show: false },
    axisLabel: {
      color: '#1d2430',
      width: narrow() ? 92 : 170,
      overflow: /** @type {const} */ ('truncate'),
      /** @param {string} v */
      formatter: (v) => {
        const r = rows.find((x) => x.label === v);
        return r?.failed ? `${v} ✕` : r?.clientBound || r?.atLeast ? `${v} ≥` : v;
      },
    },
  });
  /** @param {string} name @param {number} [max] */
  const valueAxis = (name, max) => ({
    type: /** @type {const} */ ('value'),
    name,
    nameLocation: /** @type {const} */ ('middle'),
    nameGap: 26,
    max,
    // A fixed maximum gets even steps (0, 25, 50, 75, 100), so the last label never crowds the one before.
    interval: max ? max / (narrow() ? 2 : 4) : undefined,
    splitNumber: narrow() ? 3 : 5,
    axisLabel: { hideOverlap: true, formatter: kFmt },
    splitLine: { lineStyle: { color: '#eceef2' } },
  });
  const grid = { left: 8, right: 18, top: 8, bottom: 38, containLabel: true };
  /** @param {PageRow} r */
  const dim = (r) => (highlighted() && highlighted() !== r.label ? 0.3 : 1);

  /** A bar's value label: "≥ 12.3k" (≥ for a lower bound), rounded to 100 requests/s. @param {PageRow} r */
  const barLabel = (r) =>
    `${r.clientBound || r.atLeast ? '≥ ' : ''}${r.rps == null ? '–' : kFmt(Math.round(r.rps / 100) * 100)}`;

  /**
   * The row an ECharts tooltip points at (its first item's dataIndex into `list`), or undefined.
   * @param {any} p @param {PageRow[]} list @returns {PageRow | undefined}
   */
  function tooltipRow(p, list) {
    const one = Array.isArray(p) ? p[0] : p;
    return one ? list[one.dataIndex ?? 0] : undefined;
  }

  /**
   * Requests/s bars with interval whiskers; client-bound bars hatched, failed rows marked ✕; each
   * value label right of its whisker's high end (never on the whisker). `axis` names the axis,
   * `label` writes a bar's value label, `unit` follows the figure in the tooltip.
   * @param {PageRow[]} rows @param {string} [axis] @param {(r: PageRow) => string} [label] @param {string} [unit]
   * @returns {Option}
   */
  function rpsOption(rows, axis = 'requests/s', label = barLabel, unit = 'requests/s') {
    return {
      textStyle: font,
      animation: false,
      grid: { ...grid, right: 56 },
      tooltip: {
        trigger: 'item',
        formatter: (p) => {
          const r = tooltipRow(p, rows);
          if (!r) return '';
          if (r.failed) return `<b>${esc(r.label)}</b><br>failed: not ranked`;
          return `<b>${esc(r.label)}</b><br>${r.rps == null ? '–' : `${r.atLeast ? '≥ ' : ''}${fmtInt(r.rps)} ${unit}`}${r.lo != null && r.hi != null ? `<br>${esc(r.interval)} ${fmtInt(Math.floor(r.lo))}–${fmtInt(Math.ceil(r.hi))}` : ''}${r.clientBound ? '<br>client-bound: a lower bound' : ''}${r.atLeast ? '<br>the open-loop driver reached its limit: a lower bound' : ''}`;
        },
      },
      xAxis: valueAxis(axis),
      yAxis: catAxis(rows),
      series: [
        {
          type: 'bar',
          barMaxWidth: 22,
          data: rows.map((r) => ({
            value: r.failed ? 0 : (r.rps ?? 0),
            itemStyle: {
              color: color(r.label),
              opacity: dim(r),
              borderRadius: [0, 3, 3, 0],
              decal:
                r.clientBound || r.atLeast
                  ? {
                      symbol: 'rect',
                      dashArrayX: [1, 0],
                      dashArrayY: [3, 4],
                      rotation: -Math.PI / 4,
                      color: 'rgba(255,255,255,0.55)',
                    }
                  : undefined,
            },
            // A row with an interval gets its label from the whisker series, right of the whisker.
            label: {
              show: r.failed || r.hi == null,
              position: 'right',
              fontSize: 11,
              color: r.failed ? '#c92a2a' : '#1d2430',
              formatter: r.failed ? 'failed' : label(r),
            },
          })),
        },
        {
          type: 'custom',
          name: 'interval',
          z: 5,
          silent: true,
          // [row, lo, hi, the value label drawn right of the whisker]
          data: rows.map((r, i) => [i, r.failed ? null : r.lo, r.failed ? null : r.hi, label(r)]),
          encode: { x: [1, 2], y: 0 },
          renderItem: (_params, api) => {
            const lo = api.value(1);
            const hi = api.value(2);
            if (typeof lo !== 'number' || typeof hi !== 'number' || Number.isNaN(lo)) return null;
            // api.coord gives [x, y]
            const [ax = Number.NaN, ay = Number.NaN] = api.coord([lo, api.value(0)]);
            const [bx = Number.NaN, by = Number.NaN] = api.coord([hi, api.value(0)]);
            const size = api.size?.([0, 1]);
            const h = ((Array.isArray(size) ? size[1] : 16) ?? 16) * 0.22;
            const style = { stroke: '#1d2430', lineWidth: 1.4 };
            return {
              type: 'group',
              children: [
                { type: 'line', shape: { x1: ax, y1: ay, x2: bx, y2: by }, style },
                { type: 'line', shape: { x1: ax, y1: ay - h, x2: ax, y2: ay + h }, style },
                { type: 'line', shape: { x1: bx, y1: by - h, x2: bx, y2: by + h }, style },
                {
                  type: 'text',
                  style: {
                    text: String(api.value(3)),
                    x: bx + 4,
                    y: by,
                    verticalAlign: 'middle',
                    fontSize: 11,
                    fill: '#1d2430',
                    font: '11px system-ui, sans-serif',
                  },
                },
              ],
            };
          },
        },
      ],
    };
  }

  /** p50 and p99 per contender on a log axis (a dot plot), joined by a line. @param {PageRow[]} rows @returns {Option} */
  function latencyOption(rows) {
    const withLat = rows.filter((r) => r.p50 != null && r.p99 != null && !r.failed);
    return {
      textStyle: font,
      animation: false,
      grid: { ...grid, top: 26 },
      legend: { top: 0, right: 0, itemWidth: 10, itemHeight: 10, data: ['p50', 'p99'] },
      tooltip: {
        trigger: 'item',
        formatter: (p) => {
          const r = tooltipRow(p, withLat);
          return r ? `<b>${esc(r.label)}</b><br>p50 ${fmtMs(r.p50 ?? 0)} ms<br>p99 ${fmtMs(r.p99 ?? 0)} ms` : '';
        },
      },
      xAxis: {
        type: 'log',
        name: 'latency (ms, log scale)',
        nameLocation: 'middle',
        nameGap: 26,
        axisLabel: { hideOverlap: true, formatter: (/** @type {number} */ v) => fmtMs(v) },
        splitLine: { lineStyle: { color: '#eceef2' } },
      },
      yAxis: catAxis(withLat),
      series: [
        {
          type: 'custom',
          silent: true,
          data: withLat.map((r, i) => [i, r.p50, r.p99]),
          encode: { x: [1, 2], y: 0 },
          renderItem: (_params, api) => {
            const a = api.coord([api.value(1), api.value(0)]);
            const b = api.coord([api.value(2), api.value(0)]);
            return {
              type: 'line',
              shape: { x1: a[0], y1: a[1], x2: b[0], y2: b[1] },
              style: { stroke: '#adb5bd', lineWidth: 2 },
            };
          },
        },
        {
          name: 'p50',
          type: 'scatter',
          symbol: 'circle',
          symbolSize: 9,
          itemStyle: { color: '#2f6fdb' },
          data: withLat.map((r, i) => ({ value: [r.p50 ?? 0, i], itemStyle: { opacity: dim(r) } })),
        },
        {
          name: 'p99',
          type: 'scatter',
          symbol: 'diamond',
          symbolSize: 11,
          itemStyle: { color: '#e8590c' },
          data: withLat.map((r, i) => ({ value: [r.p99 ?? 0, i], itemStyle: { opacity: dim(r) } })),
        },
      ],
    };
  }

  /**
   * Average and peak bars on an honest scale: CPU % of the pinned cores (100 = one core), the axis
   * ending at cores × 100 and every value clamped to it (the tooltip gives the measured value).
   * @param {PageRow[]} rows @param {'cpu' | 'rss'} kind @returns {Option}
   */
  function resourceOption(rows, kind) {
    const use = rows.filter((r) => (kind === 'cpu' ? r.cpuAvg : r.rssAvg) != null && !r.failed);
    const cap = Math.max(100, ...use.map((r) => r.cpuCap ?? 100));
    /** @param {number | null} v */
    const clamp = (v) => (v == null ? 0 : kind === 'cpu' ? Math.min(v, cap) : v);
    const avg = use.map((r) => (kind === 'cpu' ? r.cpuAvg : r.rssAvg));
    const peak = use.map((r) => (kind === 'cpu' ? r.cpuPeak : r.rssPeak));
    const unit = kind === 'cpu' ? '%' : ' MiB';
    return {
      textStyle: font,
      animation: false,
      grid: { ...grid, top: 26 },
      legend: { top: 0, right: 0, itemWidth: 10, itemHeight: 8, data: ['average', 'peak'] },
      tooltip: {
        trigger: 'axis',
        axisPointer: { type: 'shadow' },
        formatter: (p) => {
          const list = Array.isArray(p) ? p : [p];
          const i = list[0]?.dataIndex ?? 0;
          const r = use[i];
          if (!r) return '';
          const a = avg[i];
          const k = peak[i];
          return `<b>${esc(r.label)}</b><br>average ${a == null ? '–' : fmtMs(a)}${unit}<br>peak ${k == null ? '–' : fmtMs(k)}${unit}${kind === 'cpu' && k != null && k > cap ? ` (shown at the axis maximum, ${cap}%)` : ''}`;
        },
      },
      xAxis: valueAxis(
        kind === 'cpu' ? `CPU % of one core (max ${cap})` : 'server RSS (MiB)',
        kind === 'cpu' ? cap : undefined,
      ),
      yAxis: catAxis(use),
      series: [
        {
          name: 'average',
          type: 'bar',
          barMaxWidth: 12,
          itemStyle: { color: '#5d6778' },
          data: use.map((r, i) => ({
            value: clamp(avg[i] ?? null),
            itemStyle: { color: color(r.label), opacity: dim(r) },
          })),
        },
        {
          name: 'peak',
          type: 'bar',
          barMaxWidth: 12,
          itemStyle: { color: '#c3c8d0' },
          data: use.map((r, i) => ({
            value: clamp(peak[i] ?? null),
            itemStyle: { color: color(r.label), opacity: 0.4 * dim(r) },
          })),
        },
      ],
    };
  }

  /**
   * Requests per server CPU-second per contender (PageRow.eff: the median of the interleaved
   * rounds, else the solo windows' requests/s ÷ server CPU), labelled with its value.
   * @param {PageRow[]} rows @returns {Option}
   */
  function efficiencyOption(rows) {
    const use = rows.filter((r) => r.eff != null && !r.failed);
    return {
      textStyle: font,
      animation: false,
      grid: { ...grid, right: 56 },
      tooltip: {
        trigger: 'item',
        formatter: (p) => {
          const r = tooltipRow(p, use);
          if (!r) return '';
          const from =
            r.effFrom === 'rounds' ? 'median of the interleaved rounds' : 'solo windows: requests/s ÷ server CPU';
          return `<b>${esc(r.label)}</b><br>${fmtInt(r.eff ?? 0)} requests per server CPU-second<br>${from}`;
        },
      },
      xAxis: valueAxis('requests per server CPU-second'),
      yAxis: catAxis(use),
      series: [
        {
          type: 'bar',
          barMaxWidth: 22,
          data: use.map((r) => ({
            value: r.eff ?? 0,
            itemStyle: { color: color(r.label), opacity: dim(r), borderRadius: [0, 3, 3, 0] },
            label: {
              show: true,
              position: 'right',
              fontSize: 11,
              color: '#1d2430',
              formatter: kFmt(Math.round((r.eff ?? 0) / 100) * 100),
            },
          })),
        },
      ],
    };
  }

  /**
   * The ranking measure: each row's % of the table's baseline in requests per CPU-second with the
   * table model's interval as whiskers (PageRow.pct, pctLo, pctHi), drawn as the requests/s bars are.
   * @param {PageRow[]} rows @returns {Option}
   */
  function measureOption(rows) {
    const use = rows
      .filter((r) => r.pct != null || r.failed)
      .map((r) => ({
        ...r,
        rps: r.pct,
        lo: r.pctLo,
        hi: r.pctHi,
        interval: r.pctInterval,
        clientBound: false,
        atLeast: false,
      }));
    const pct = (/** @type {PageRow} */ r) => (r.rps == null ? '–' : `${Math.round(r.rps)}%`);
    return rpsOption(use, '% of baseline (requests per CPU-second)', pct, '% of baseline (requests per CPU-second)');
  }

  /** Panels per row of the capacity small multiples. @param {number} n */
  const capacityCols = (n) => Math.max(1, Math.min(n, narrow() ? 2 : 5));
  /** Height in px of one small-multiple panel (plot area), and of its title and axis labels. */
  const PANEL_H = 96;
  const PANEL_GAP = 58;

  /**
   * Latency against the offered rate of a capacity table as small multiples: one panel per
   * contender shown, on shared axes (offered rate, p99 on a log scale), each with the contender's
   * median curve (its steps of all searches binned on a log scale of the rate: median rate,
   * median p99; ● most steps of the bin held the SLO, ○ most failed) and the SLO as a dashed
   * line; the panel's title names it, so there is no legend. The highlight dims the other panels.
   * @param {PageCapacity} cap @param {Set<string>} show @returns {Option}
   */
  function capacityOption(cap, show) {
    const curves = cap.curves.filter((c) => show.has(c.label));
    const p99s = [cap.slo, ...curves.flatMap((c) => c.points.map((p) => Math.max(p[1], 0.001)))];
    const lo = 10 ** Math.floor(Math.log10(Math.min(...p99s)));
    let hi = 10 ** Math.ceil(Math.log10(Math.max(...p99s)));
    if (hi <= lo) hi = lo * 10;
    const xMax = Math.max(1, ...curves.flatMap((c) => c.points.map((p) => p[0])));
    const cols = capacityCols(curves.length);
    const hl = highlighted();
    const at = (/** @type {number} */ i) => ({
      left: `${((i % cols) * 100) / cols + 6}%`,
      width: `${100 / cols - 8}%`,
      top: Math.floor(i / cols) * (PANEL_H + PANEL_GAP) + 30,
      height: PANEL_H,
    });
    return {
      textStyle: font,
      animation: false,
      title: curves.map((c, i) => ({
        text: c.label,
        left: at(i).left,
        top: at(i).top - 22,
        textStyle: {
          fontSize: 12,
          fontWeight: 'normal',
          color: color(c.label),
          opacity: hl && hl !== c.label ? 0.4 : 1,
        },
      })),
      grid: curves.map((_, i) => at(i)),
      tooltip: {
        trigger: 'item',
        formatter: (p) => {
          const one = Array.isArray(p) ? p[0] : p;
          if (!one) return '';
          const c = curves[one.seriesIndex ?? -1];
          const pt = c?.points[one.dataIndex ?? 0];
          if (!c || !pt) return '';
          return `<b>${esc(c.label)}</b><br>offered ${fmtInt(pt[0])} requests/s (median of ${pt[2]} steps)<br>p99 ${fmtMs(pt[1])} ms (median); ${pt[3]} of ${pt[2]} held the SLO (${cap.slo} ms)`;
        },
      },
      xAxis: curves.map((_, i) => ({
        gridIndex: i,
        type: 'value',
        min: 0,
        max: xMax,
        splitNumber: 2,
        axisLabel: { hideOverlap: true, formatter: kFmt, fontSize: 10 },
        splitLine: { lineStyle: { color: '#eceef2' } },
      })),
      yAxis: curves.map((_, i) => ({
        gridIndex: i,
        type: 'log',
        min: lo,
        max: hi,
        axisLabel: {
          show: i % cols === 0,
          hideOverlap: true,
          fontSize: 10,
          formatter: (/** @type {number} */ v) => fmtMs(v),
        },
        splitLine: { lineStyle: { color: '#eceef2' } },
      })),
      series: curves.map((c, i) => {
        const opacity = hl && hl !== c.label ? 0.25 : 1;
        return /** @type {import('echarts').LineSeriesOption} */ ({
          name: c.label,
          type: 'line',
          xAxisIndex: i,
          yAxisIndex: i,
          symbolSize: 5,
          lineStyle: { color: color(c.label), width: hl === c.label ? 2.5 : 1.5, opacity },
          itemStyle: { color: color(c.label), opacity },
          data: c.points.map((p) => ({
            value: [p[0], Math.max(p[1], 0.001)],
            symbol: 2 * p[3] >= p[2] ? 'circle' : 'emptyCircle',
          })),
          markLine: {
            silent: true,
            symbol: 'none',
            lineStyle: { color: '#c92a2a', type: 'dashed', width: 1 },
            label:
              i === 0
                ? { formatter: `SLO p99 ≤ ${cap.slo} ms`, position: 'insideStartTop', color: '#c92a2a', fontSize: 10 }
                : { show: false },
            data: [{ yAxis: cap.slo }],
          },
        });
      }),
    };
  }

  /** Height of a capacity table's small multiples for the contenders shown. @param {PageCapacity} cap @param {Set<string>} show */
  const capacityHeight = (cap, show) => {
    const n = Math.max(1, cap.curves.filter((c) => show.has(c.label)).length);
    return Math.ceil(n / capacityCols(n)) * (PANEL_H + PANEL_GAP) + 20;
  };

  const tablesById = new Map(data.tables.map((t) => [t.id, t]));

  /** Draws (or redraws) one chart for the contenders shown. @param {HTMLElement} el */
  function draw(el) {
    const t = tablesById.get(el.dataset.table ?? '');
    if (!t) return;
    const show = shownContenders();
    // A capacity table also draws its measured rows that are not ranked for their few searches.
    const rows = t.rows.filter(
      (r) =>
        !r.otherRun && (r.rank !== null || r.failed || (t.capacity !== null && r.rps !== null)) && show.has(r.label),
    );
    const kind = el.dataset.chart;
    el.style.height =
      kind === 'capacity' && t.capacity
        ? `${capacityHeight(t.capacity, show)}px`
        : `${Math.max(200, 84 + rows.length * 26)}px`;
    let chart = charts.get(el);
    if (!chart) {
      chart = echarts.init(el, null, { renderer: 'svg' });
      charts.set(el, chart);
    } else chart.resize();
    const option =
      kind === 'capacity' && t.capacity
        ? capacityOption(t.capacity, show)
        : kind === 'measure'
          ? measureOption(rows)
          : kind === 'rps'
            ? rpsOption(rows)
            : kind === 'latency'
              ? latencyOption(rows)
              : kind === 'efficiency'
                ? efficiencyOption(rows)
                : kind === 'cpu'
                  ? resourceOption(rows, 'cpu')
                  : resourceOption(rows, 'rss');
    chart.setOption(option, { notMerge: true });
    el.dataset.drawn = '1';
  }

  // ---- filters ----------------------------------------------------------------------------
  function apply() {
    /** @type {Record<string, string>} */
    const want = {};
    for (const [id, key] of FILTERS) want[key] = select(id)?.value ?? '';
    const show = shownContenders();
    const hl = highlighted();
    let shown = 0;
    for (const s of all('section.group')) {
      const sec = /** @type {HTMLElement} */ (s);
      const ok = FILTERS.every(([, key]) => !want[key] || sec.dataset[key] === want[key]);
      sec.classList.toggle('hidden', !ok);
      if (ok) shown++;
    }
    for (const tr of all('tr[data-label]')) {
      const row = /** @type {HTMLElement} */ (tr);
      const label = row.dataset.label ?? '';
      const scenOk = !row.dataset.scenario || !want.scenario || row.dataset.scenario === want.scenario;
      row.classList.toggle('hidden', !(show.has(label) || !data.contenders.includes(label)) || !scenOk);
      row.classList.toggle('hl', hl !== '' && label === hl);
    }
    // The winners table follows the contender filter: a name unchecked leaves it.
    for (const n of all('table.winners .who-name[data-label]')) {
      const name = /** @type {HTMLElement} */ (n);
      name.classList.toggle('hidden', !show.has(name.dataset.label ?? ''));
    }
    for (const td of all('table.heatmap td[data-label]')) {
      const cell = /** @type {HTMLElement} */ (td);
      cell.classList.toggle('hl', hl !== '' && cell.dataset.label === hl);
    }
    // Issue chips count the findings still visible.
    const visible = all('tr.finding').filter((tr) => !tr.classList.contains('hidden'));
    for (const chip of all('.chips [data-severity]')) {
      const c = /** @type {HTMLElement} */ (chip);
      const n = visible.filter((tr) => /** @type {HTMLElement} */ (tr).dataset.severity === c.dataset.severity).length;
      c.textContent = `${n} ${c.dataset.severity}`;
      c.classList.toggle('hidden', n === 0);
    }
    const none = document.getElementById('findings-filtered');
    if (none) none.classList.toggle('hidden', visible.length > 0 || all('tr.finding').length === 0);
    document.getElementById('empty')?.classList.toggle('hidden', shown > 0);
    const counter = document.getElementById('shown');
    if (counter)
      counter.textContent = `${shown} of ${data.tables.length} tables · ${show.size} of ${data.contenders.length} contenders`;
    // Charts inside a folded <details> are drawn when it opens (a closed one has no size).
    for (const el of all('section.group:not(.hidden) .chart'))
      if (/** @type {HTMLElement} */ (el).offsetParent !== null) draw(/** @type {HTMLElement} */ (el));
    const q = new URLSearchParams();
    for (const [key, v] of Object.entries(want)) if (v) q.set(key, v);
    if (show.size < data.contenders.length) q.set('only', [...show].join(','));
    if (hl) q.set('highlight', hl);
    const hash = q.toString();
    // An anchor (#overview) stays until a filter is set; a filter hash follows the controls.
    const cur = location.hash.slice(1);
    if (cur !== hash && (cur.includes('=') || hash !== ''))
      history.replaceState(null, '', hash ? `#${hash}` : location.pathname + location.search);
  }

  const initial = new URLSearchParams(location.hash.slice(1));
  for (const [id, key] of FILTERS) {
    const s = select(id);
    if (!s) continue;
    const v = initial.get(key);
    if (v && [...s.options].some((o) => o.value === v)) s.value = v;
    s.addEventListener('change', apply);
  }
  const only = initial.get('only');
  if (only) {
    const keep = new Set(only.split(','));
    for (const b of boxes) b.checked = keep.has(b.value);
  }
  const hlInit = initial.get('highlight');
  if (highlightSel && hlInit && [...highlightSel.options].some((o) => o.value === hlInit)) highlightSel.value = hlInit;
  for (const b of boxes) b.addEventListener('change', apply);
  highlightSel?.addEventListener('change', apply);
  document.getElementById('f-all')?.addEventListener('click', () => {
    for (const b of boxes) b.checked = true;
    apply();
  });
  document.getElementById('f-reset')?.addEventListener('click', () => {
    for (const [id] of FILTERS) {
      const s = select(id);
      if (s) s.value = '';
    }
    for (const b of boxes) b.checked = true;
    if (highlightSel) highlightSel.value = '';
    apply();
  });

  // ---- folded details ---------------------------------------------------------------------
  /** Opens every <details> around the element with id `id` (a link into a folded block). @param {string} id */
  function reveal(id) {
    const el = id ? document.getElementById(id) : null;
    for (let d = el?.closest('details'); d; d = d.parentElement?.closest('details') ?? null) d.open = true;
  }
  document.addEventListener('click', (e) => {
    const a = /** @type {HTMLElement | null} */ (e.target instanceof Element ? e.target.closest('a[href^="#"]') : null);
    if (a) reveal(decodeURIComponent((a.getAttribute('href') ?? '').slice(1)));
  });
  window.addEventListener('hashchange', () => reveal(decodeURIComponent(location.hash.slice(1))));
  for (const d of all('details')) {
    const fold = /** @type {HTMLDetailsElement} */ (d);
    fold.addEventListener('toggle', () => {
      if (!fold.open) return;
      for (const el of all('section.group:not(.hidden) .chart', fold))
        if (/** @type {HTMLElement} */ (el).offsetParent !== null) draw(/** @type {HTMLElement} */ (el));
    });
  }
  if (!location.hash.includes('=')) reveal(decodeURIComponent(location.hash.slice(1)));

  // ---- tables as cards on a phone: each cell names its column (CSS shows it under 560 px) ----
  for (const table of all('table.board, table.issues, table.claims, table.footprint, table.runs')) {
    table.classList.add('cards');
    const heads = all('thead th', table).map((h) => h.textContent?.trim() ?? '');
    for (const tr of all('tbody tr', table))
      all('td', tr).forEach((td, i) => {
        if (heads[i]) /** @type {HTMLElement} */ (td).dataset.h = heads[i];
      });
  }

  // ---- sortable tables --------------------------------------------------------------------
  /** @param {HTMLTableCellElement | undefined} td */
  const sortValue = (td) => td?.dataset.v ?? td?.textContent?.trim() ?? '';
  for (const table of all('table.sortable')) {
    const ths = /** @type {HTMLTableCellElement[]} */ (all('thead th', table));
    ths.forEach((th, col) => {
      const btn = th.querySelector('button');
      if (!btn) return;
      btn.addEventListener('click', () => {
        const dir = th.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending';
        for (const other of ths) if (other.hasAttribute('aria-sort')) other.setAttribute('aria-sort', 'none');
        th.setAttribute('aria-sort', dir);
        const body = /** @type {HTMLTableElement} */ (table).tBodies[0];
        if (!body) return;
        const rows = [...body.rows];
        const numeric = th.classList.contains('num');
        // Empty cells (not measured, failed) stay at the bottom in both directions.
        rows.sort((a, b) => {
          const x = sortValue(a.cells[col]);
          const y = sortValue(b.cells[col]);
          if (x === '' || y === '') return (x === '' ? 1 : 0) - (y === '' ? 1 : 0);
          const cmp = numeric ? Number(x) - Number(y) : x.localeCompare(y);
          return dir === 'ascending' ? cmp : -cmp;
        });
        for (const r of rows) body.appendChild(r);
      });
    });
  }

  // ---- compare view -----------------------------------------------------------------------
  const ca = select('cmp-a');
  const cb = select('cmp-b');
  const cmpBody = document.querySelector('#compare-table tbody');
  /** @param {PageRatio} r */
  const pctText = (r) =>
    `${Math.round(r.figure * 100)}%${r.lo != null && r.hi != null ? ` <span class="sub">(${esc(r.interval)} ${Math.floor(r.lo * 100)}–${Math.ceil(r.hi * 100)})</span>` : ''}`;
  function compare() {
    if (!ca || !cb || !cmpBody) return;
    const a = new Map(data.ratios.filter((r) => r.runId === ca.value).map((r) => [r.key, r]));
    const b = data.ratios.filter((r) => r.runId === cb.value && a.has(r.key));
    const out = b
      .map((rb) => {
        const ra = /** @type {PageRatio} */ (a.get(rb.key));
        const change = rb.figure / ra.figure - 1;
        return `<tr data-label="${esc(rb.label)}"><td><code>${esc(rb.label)}</code></td><td>${esc(rb.scenario)}</td><td>${esc(rb.shape)}</td><td class="num" data-v="${ra.figure}">${pctText(ra)}</td><td class="num" data-v="${rb.figure}">${pctText(rb)}</td><td class="num" data-v="${change}">${change >= 0 ? '+' : '−'}${Math.abs(change * 100).toFixed(1)}%</td></tr>`;
      })
      .join('');
    cmpBody.innerHTML =
      out ||
      '<tr><td colspan="6" class="note">No cell of these two runs matches (contender, scenario, profile, driver and Node major).</td></tr>';
    const status = document.getElementById('cmp-status');
    if (status) status.textContent = `${b.length} cells in both runs`;
    apply();
  }
  ca?.addEventListener('change', compare);
  cb?.addEventListener('change', compare);

  let resizeTimer = 0;
  window.addEventListener('resize', () => {
    window.clearTimeout(resizeTimer);
    resizeTimer = window.setTimeout(() => {
      for (const el of charts.keys()) if (el.offsetParent !== null) draw(el);
    }, 100);
  });
  window.addEventListener('beforeprint', () => {
    // A printout holds everything: the folded blocks open.
    for (const d of all('details')) /** @type {HTMLDetailsElement} */ (d).open = true;
    for (const c of charts.values()) c.resize();
  });

  compare();
  apply();
  document.body.dataset.ready = '1';
})();
