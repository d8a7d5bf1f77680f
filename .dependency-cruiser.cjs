/**
 * The layer check (part of `just test`): imports point one way, down this list, and never in a
 * cycle. A module may import its own layer and any layer below it. README "Architecture" draws it.
 *
 *   cli → report → scheduler → analysis → store → drivers → services → lifecycle → contract → core
 *
 * compose/ (the Docker Compose and k8s generators) may import any layer but cli.
 */
const LAYERS = [
  ['core', '^harness/core/'],
  ['contract', '^harness/contract/'],
  ['lifecycle', '^harness/lifecycle/'],
  ['services', '^harness/services/'],
  ['drivers', '^harness/drivers/'],
  ['store', '^harness/store/'],
  ['analysis', '^harness/analysis/'],
  ['scheduler', '^harness/scheduler/'],
  ['report', '^harness/report/'],
  ['cli', '^harness/(cli\\.ts$|cli/)'],
];

const upward = LAYERS.slice(0, -1).map(([name, from], i) => ({
  name: `layer-${name}-imports-upward`,
  comment: `${name} may import only ${LAYERS.slice(0, i + 1).map(([n]) => n).join(', ')}`,
  severity: 'error',
  from: { path: from },
  to: { path: LAYERS.slice(i + 1).map(([, p]) => p).join('|') },
}));

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'import cycles hide which layer owns what', from: {}, to: { circular: true } },
    {
      name: 'harness-outside-layers',
      severity: 'error',
      comment: 'every harness module lives in one of the layer folders (or is cli.ts)',
      from: { path: '^harness/' , pathNot: LAYERS.map(([, p]) => p).join('|') },
      to: {},
    },
    {
      name: 'compose-imports-cli',
      severity: 'error',
      comment: "compose/ builds on the harness's lower layers (core, contract, drivers, scheduler …), never on its CLI",
      from: { path: '^compose/' },
      to: { path: '^harness/(cli\\.ts$|cli/)' },
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|contenders|results)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
