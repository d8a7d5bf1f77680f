// Which machine a result ran on (harness/core/machine.ts): the CPU identity read from
// /proc/cpuinfo and the kernel's vulnerability files (fixtures written here, then this machine's
// own), and the matching rule the how-sure line, the A/A tally and the self-test line use.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { cpuIdentity, type MachineFacts, machineKey, machineName, sameMachine } from '../../harness/core/machine.ts';
import { machineInfo } from '../../harness/store/results.ts';
import { tmpDir } from '../helpers.ts';

/** Two processors of a Zen 5 EPYC as /proc/cpuinfo prints them (trimmed). */
const CPUINFO = `processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 26
model\t\t: 2
model name\t: AMD EPYC
stepping\t: 1
microcode\t: 0x1000065
flags\t\t: fpu vme de pse

processor\t: 1
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 85
stepping\t: 7
`;

function fixture(cpuinfo: string, vulns: Record<string, string> | null): { cpuinfo: string; vulnerabilities: string } {
  const dir = tmpDir('machine');
  const file = path.join(dir, 'cpuinfo');
  fs.writeFileSync(file, cpuinfo);
  const v = path.join(dir, 'vulnerabilities');
  if (vulns) {
    fs.mkdirSync(v);
    for (const [k, x] of Object.entries(vulns)) fs.writeFileSync(path.join(v, k), `${x}\n`);
  }
  return { cpuinfo: file, vulnerabilities: v };
}

test('the CPU identity: the first processor of /proc/cpuinfo and every vulnerability file; undefined when unreadable or incomplete', () => {
  const id = cpuIdentity(
    fixture(CPUINFO, { spec_rstack_overflow: 'Vulnerable: Safe RET, no microcode', meltdown: 'Not affected' }),
  );
  assert.deepEqual(id, {
    vendor: 'AuthenticAMD',
    family: 26,
    model: 2,
    stepping: 1,
    microcode: '0x1000065',
    mitigations: { meltdown: 'Not affected', spec_rstack_overflow: 'Vulnerable: Safe RET, no microcode' },
  });
  // No vulnerability folder (an older kernel): an identity with no mitigations.
  assert.deepEqual(cpuIdentity(fixture(CPUINFO, null))?.mitigations, {});
  // A cpuinfo without family or stepping (some Arm kernels), or none at all: no identity.
  assert.equal(cpuIdentity(fixture('processor\t: 0\nvendor_id\t: ARM\nmodel\t: 1\n', null)), undefined);
  assert.equal(cpuIdentity({ cpuinfo: '/nonexistent/cpuinfo', vulnerabilities: '/nonexistent' }), undefined);
});

test('this machine: machineInfo records the identity where Linux reports one', {
  skip: !fs.existsSync('/proc/cpuinfo'),
}, () => {
  const m = machineInfo();
  const id = cpuIdentity();
  assert.deepEqual(m.cpu, id);
  if (id) {
    assert.match(machineName(m), /\(family \d+, model \d+, stepping \d+; /);
  }
  assert.ok(sameMachine(m, machineInfo()), 'a machine matches itself');
});

test('matching: CPU name, kernel, cores and identity must all agree; microcode does not count; results without an identity match only each other', () => {
  const id = cpuIdentity(fixture(CPUINFO, { spec_rstack_overflow: 'Vulnerable: Safe RET, no microcode' }));
  assert.ok(id);
  const here: MachineFacts = { cpuModel: 'AMD EPYC', os: 'Linux 6.18.44-fc-v657', cores: 2, cpu: id };
  const differs: [string, MachineFacts][] = [
    ['another CPU name', { ...here, cpuModel: 'AMD EPYC 7B13' }],
    ['another kernel', { ...here, os: 'Linux 6.18.44-fc-v669' }],
    ['more cores', { ...here, cores: 4 }],
    ['another family and model', { ...here, cpu: { ...id, family: 25, model: 17 } }],
    ['another stepping', { ...here, cpu: { ...id, stepping: 0 } }],
    ['another mitigation', { ...here, cpu: { ...id, mitigations: { spec_rstack_overflow: 'Mitigation: IBPB' } } }],
    ['no identity recorded', { cpuModel: here.cpuModel, os: here.os, cores: here.cores }],
  ];
  for (const [why, other] of differs) {
    assert.equal(sameMachine(here, other), false, why);
    assert.notEqual(machineKey(here), machineKey(other), why);
  }
  assert.ok(sameMachine(here, { ...here, cpu: { ...id, microcode: '0x2000000' } }), 'a microcode update');
  // The mitigations' order in the file listing does not matter.
  const two = { a: 'x', b: 'y' };
  assert.ok(
    sameMachine(
      { ...here, cpu: { ...id, mitigations: two } },
      { ...here, cpu: { ...id, mitigations: { b: 'y', a: 'x' } } },
    ),
  );
  // Older results: equal name, kernel and cores match; another kernel does not.
  const old = { cpuModel: 'AMD EPYC', os: 'Linux 6.18.44-fc-v669', cores: 2 };
  assert.ok(sameMachine(old, { ...old }));
  assert.equal(sameMachine(old, { ...old, os: 'Linux 6.18.44-fc-v657' }), false);
  assert.equal(machineName(here), 'AMD EPYC (family 26, model 2, stepping 1; Linux 6.18.44-fc-v657)');
  assert.equal(machineName(old), 'AMD EPYC (Linux 6.18.44-fc-v669; no CPU identity recorded)');
});
