// `mock-idp users --count 100000`: spawn → exit of the real binary writing its YAML into a pipe that is
// read and discarded, as `mock-idp users ... > file` would; the target is under 2 s.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { BIN, ROOT } from './mock-idp.js';
import { median, round } from './stats.js';

/** CPU seconds of this process's finished children (Linux /proc; null elsewhere). */
function childrenCpuS() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    // After the command: state is field 3; cutime and cstime are fields 16 and 17 (clock ticks, 100/s).
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

/** @param {string[]} args @returns {Promise<{ ms: number, bytes: number, cpuS: number | null }>} */
function runOnce(args) {
  return new Promise((resolve, reject) => {
    const cpu0 = childrenCpuS();
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let bytes = 0;
    let err = '';
    child.stdout.on('data', (chunk) => (bytes += chunk.length));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - t0;
      const cpu1 = childrenCpuS();
      if (code !== 0) reject(new Error(`mock-idp ${args.join(' ')}: exit ${code}\n${err}`));
      else resolve({ ms, bytes, cpuS: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0 });
    });
  });
}

/** @param {{ runs: number, count?: number }} opts */
export async function measureUsers({ runs, count = 100_000 }) {
  const args = ['users', '--count', String(count), '--seed', 'bench'];
  /** @type {{ ms: number, bytes: number, cpuS: number | null }[]} */
  const all = [];
  for (let i = 0; i < runs; i++) all.push(await runOnce(args));
  const cpu = all.map((r) => r.cpuS).filter((x) => x !== null);
  return {
    count,
    runs,
    spawnToExitMs: { median: round(median(all.map((r) => r.ms))), all: all.map((r) => round(r.ms)) },
    cpuS: cpu.length > 0 ? { median: round(median(cpu), 2), all: cpu.map((x) => round(x, 2)) } : null,
    outputMB: round((all[0]?.bytes ?? 0) / 2 ** 20),
  };
}
