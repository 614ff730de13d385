// Child processes and containers of a bench run: spawned here, always killed at the end, even on error.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();
/** @type {Set<string>} */
const containers = new Set();

/**
 * Spawns `node ...args` and resolves once a stdout line matches `ready`.
 * @param {string[]} args arguments after `node`
 * @param {{ cwd: string, ready: RegExp, timeoutMs?: number, env?: NodeJS.ProcessEnv }} opts
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, match: RegExpMatchArray, t0: number, tReady: number }>}
 */
export function spawnNode(args, { cwd, ready, timeoutMs = 15000, env = process.env }) {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const fail = (/** @type {string} */ why) => {
      clearTimeout(timer);
      kill(child);
      reject(
        new Error(`${args.join(' ')}: ${why}\nstdout: ${out.slice(-2000)}\nstderr: ${err.slice(-2000)}`),
      );
    };
    const timer = setTimeout(() => fail(`no line matching ${ready} within ${timeoutMs} ms`), timeoutMs);
    child.stdout.on('data', (chunk) => {
      if (out.length > 65536) return;
      out += chunk;
      const match = out.match(ready);
      if (match) {
        const tReady = performance.now();
        clearTimeout(timer);
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolve({ child, match, t0, tReady });
      }
    });
    child.stderr.on('data', (chunk) => {
      if (err.length < 65536) err += chunk;
    });
    child.once('error', (e) => fail(e.message));
    child.once('exit', (code, signal) => fail(`exited early (code ${code}, signal ${signal})`));
  });
}

/**
 * SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone.
 * @param {import('node:child_process').ChildProcess} child
 * @param {number} [graceMs]
 * @returns {Promise<void>}
 */
export function kill(child, graceMs = 3000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const hard = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(hard);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** @param {string} id a container started by this run, removed by {@link killAll} */
export function trackContainer(id) {
  containers.add(id);
}

/** @param {string} id */
export function removeContainer(id) {
  containers.delete(id);
  try {
    execFileSync('docker', ['rm', '-f', id], { stdio: 'ignore', timeout: 20000 });
  } catch {
    // already gone
  }
}

/** Kills every child and container still running (synchronous, so it also works from an exit handler). */
export function killAll() {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  for (const id of [...containers]) removeContainer(id);
}

process.once('exit', killAll);
for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.once(sig, () => {
    killAll();
    process.exit(130);
  });
}

/** Clock ticks per second of /proc/PID/stat times (USER_HZ; 100 on Linux). */
const HZ = 100;

/**
 * User+system CPU seconds of a process, or of its main thread when `mainThread`.
 * @param {number | undefined} pid @returns {number | null}
 */
export function cpuSeconds(pid, mainThread = false) {
  try {
    const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / HZ;
  } catch {
    return null;
  }
}

/** @returns {number | null} busy CPU seconds of the whole machine so far (all cores) */
function machineBusySeconds() {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/) ?? [];
    const t = ticks.slice(0, 8).map(Number);
    return (t.reduce((a, b) => a + b, 0) - (t[3] ?? 0) - (t[4] ?? 0)) / HZ;
  } catch {
    return null;
  }
}

/**
 * Samples a process's resident memory (and CPU time) from /proc until stopped; Linux only, else nulls.
 * @param {number | undefined} pid
 * @returns {{ stop(): { peakRssMB: number | null, hwmMB: number | null, cpuCores: number | null, mainThreadCores: number | null, selfCpuCores: number, otherCpuCores: number | null } }}
 */
export function sampleProc(pid, everyMs = 50) {
  let peakKb = 0;
  const read = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      peakKb = Math.max(peakKb, rss);
      return hwm;
    } catch {
      return 0;
    }
  };
  const t0 = performance.now();
  const cpu0 = cpuSeconds(pid);
  const main0 = cpuSeconds(pid, true);
  const busy0 = machineBusySeconds();
  const self0 = process.cpuUsage();
  const timer = setInterval(read, everyMs);
  /** @type {ReturnType<ReturnType<typeof sampleProc>['stop']> | undefined} */
  let result;
  return {
    stop() {
      if (result) return result;
      clearInterval(timer);
      const hwm = read();
      const seconds = (performance.now() - t0) / 1000;
      const cpu1 = cpuSeconds(pid);
      const main1 = cpuSeconds(pid, true);
      const busy1 = machineBusySeconds();
      const self = process.cpuUsage(self0);
      const mb = (/** @type {number} */ kb) => (kb > 0 ? Math.round((kb / 1024) * 10) / 10 : null);
      const cores = (/** @type {number} */ s) => Math.round((s / seconds) * 100) / 100;
      const server = cpu0 === null || cpu1 === null ? null : cpu1 - cpu0;
      const mine = (self.user + self.system) / 1e6;
      result = {
        peakRssMB: mb(Math.max(peakKb, hwm)),
        hwmMB: mb(hwm),
        cpuCores: server === null ? null : cores(server),
        mainThreadCores: main0 === null || main1 === null ? null : cores(main1 - main0),
        selfCpuCores: cores(mine),
        otherCpuCores:
          server === null || busy0 === null || busy1 === null
            ? null
            : cores(Math.max(0, busy1 - busy0 - server - mine)),
      };
      return result;
    },
  };
}
