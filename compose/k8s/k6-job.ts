/**
 * Prints the job file that the project's one k6 script (harness/drivers/k6-script.js) reads from
 * BENCH_K6_CONFIG, for one scenario × k6 profile × target URL. It is built with the harness's
 * own functions (scenario contract, k6 expectation, k6 executor, profiles), so the k6 Operator
 * TestRun (compose/k8s/k6-testrun.yaml) runs exactly the requests and checks of
 * `just bench --profile k6-…`, with nothing written twice: every SAMPLE_EVERY-th iteration of
 * each VU is checked against the contract, as in the harness (scheduler/jobs.ts).
 *
 *   node compose/k8s/k6-job.ts --url http://192.0.2.10:18082 --scenario json --profile k6-vus [--vus 2000] [--duration 60]
 *   node compose/k8s/k6-job.ts --url http://192.0.2.10:18092 --scenario graphql-users --profile k6-vus --contender hasura
 *
 * --contender is needed for graphql-users (its manifest's `graphql` dialect; the expected rows
 * come from the users fixture definition, harness/services/users-seed.ts). --rate is required for k6-rate.
 * --summary <file> sets where k6 writes its end-of-test summary JSON (default "stdout": in the
 * TestRun each runner prints its own, for its share of the VUs or rate; read them with kubectl logs).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import {
  buildRequest,
  loadParams,
  loadScenarios,
  loadSharedSchemas,
  type RuntimeValues,
} from '../../harness/contract/scenarios.ts';
import { k6Executor, k6Expectation } from '../../harness/drivers/k6.ts';
import { loadManifest } from '../../harness/core/manifest.ts';
import { httpUrl } from '../../harness/core/option-values.ts';
import { getProfile } from '../../harness/core/profiles.ts';
import { parseProfileOverrides, withOverrides } from '../../harness/core/profile-overrides.ts';
import { SAMPLE_EVERY } from '../../harness/scheduler/jobs.ts';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface JobOptions {
  url: string;
  scenario: string;
  profile: string;
  contender?: string;
  vus?: string;
  duration?: string;
  rate?: string;
  /** handleSummary target: a file path, or "stdout" (default). */
  summary?: string;
}

/** The job object (what the harness writes to BENCH_K6_CONFIG), with summaryPath "stdout". */
export async function k6Job(o: JobOptions): Promise<Record<string, unknown>> {
  // Any http(s) host: the k6 Operator's runners reach the contenders over the cluster's network.
  const url = httpUrl(o.url);
  if (typeof url === 'string') throw new Error(url);
  const scenariosDir = path.join(ROOT, 'scenarios');
  const scenarios = loadScenarios(scenariosDir);
  const s = scenarios.find((x) => x.name === o.scenario);
  if (!s) throw new Error(`unknown scenario '${o.scenario}'; known: ${scenarios.map((x) => x.name).join(', ')}`);
  const profile = withOverrides(
    getProfile(o.profile),
    parseProfileOverrides({ duration: o.duration, vus: o.vus, rate: o.rate }),
  );
  if (profile.driver !== 'k6')
    throw new Error(`profile '${o.profile}' is an autocannon profile; pick a k6 profile (k6-ramp, k6-vus, k6-rate, …)`);
  const rate =
    profile.executor === 'constant-arrival-rate' ? (typeof profile.rate === 'number' ? profile.rate : null) : null;
  if (profile.executor === 'constant-arrival-rate' && rate === null)
    throw new Error(`profile '${o.profile}' needs --rate <requests/s> outside the harness`);

  const rt: RuntimeValues = {};
  if (o.contender) {
    rt.graphql = loadManifest(
      path.join(ROOT, 'contenders', o.contender),
      scenarios.map((x) => x.name),
    ).graphql;
  }
  if (Object.values(s.params).some((p) => 'from' in p && p.from === 'database.firstUsers')) {
    const { generateUsers } = await import('../../harness/services/users-seed.ts');
    rt.firstUsers = generateUsers()
      .slice(0, 10)
      .map(({ id, name, email }) => ({ id, name, email }));
  }
  const params = loadParams(s, rt);
  return {
    url: url.toString().replace(/\/$/, ''),
    scenario: s.name,
    scenariosDir: 'scenarios',
    params,
    request: buildRequest(s, params),
    sampleEvery: SAMPLE_EVERY,
    timeoutS: profile.timeoutS,
    expect: k6Expectation(s, params, loadSharedSchemas(scenariosDir)),
    executor: k6Executor(profile, rate),
    summaryPath: o.summary ?? 'stdout',
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      scenario: { type: 'string' },
      profile: { type: 'string', default: 'k6-vus' },
      contender: { type: 'string' },
      vus: { type: 'string' },
      duration: { type: 'string' },
      rate: { type: 'string' },
      summary: { type: 'string' },
    },
  });
  if (!values.url || !values.scenario) {
    console.error(
      'usage: node compose/k8s/k6-job.ts --url <http://host:port> --scenario <name> [--profile k6-vus] [--contender <name>] [--vus n] [--duration s] [--rate r] [--summary file] > job.json',
    );
    process.exit(2);
  }
  try {
    process.stdout.write(`${JSON.stringify(await k6Job(values as JobOptions), null, 2)}\n`);
  } catch (e) {
    console.error(`k6-job: ${(e as Error).message}`);
    process.exit(2);
  }
}
