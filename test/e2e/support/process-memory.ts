// Memory of a process group (wrangler dev: npx → node wrangler → workerd), sampled from /proc.
// RSS counts shared pages in every process that maps them, so the sum over-counts; PSS (from
// smaps_rollup, where readable) shares them out and sums correctly. Both are reported.
import { readdirSync, readFileSync } from "node:fs";

export type ProcessSample = { pid: number; name: string; rssBytes: number; pssBytes: number | undefined; cpuSeconds: number };

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The fields of /proc/<pid>/stat after the name (which is in parentheses and may hold spaces): index 0 is field 3. */
function statFields(pid: number | string): string[] | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  return stat === undefined ? undefined : stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** The pids whose process group is `pgid` (field 5 of /proc/<pid>/stat). */
export function groupPids(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    if (Number(statFields(entry)?.[2]) === pgid) pids.push(Number(entry));
  }
  return pids;
}

function kibField(text: string | undefined, name: string): number | undefined {
  const match = text === undefined ? null : new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text);
  return match === null ? undefined : Number(match[1]) * 1024;
}

export function sampleProcess(pid: number): ProcessSample | undefined {
  const status = readText(`/proc/${pid}/status`);
  const rss = kibField(status, "VmRSS");
  if (rss === undefined) return undefined;
  const name = /^Name:\s+(.*)$/m.exec(status ?? "")?.[1] ?? "?";
  const fields = statFields(pid);
  // utime and stime: fields 14 and 15.
  const cpuSeconds = fields === undefined ? 0 : (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  return { pid, name, rssBytes: rss, pssBytes: kibField(readText(`/proc/${pid}/smaps_rollup`), "Pss"), cpuSeconds };
}

export type GroupPeak = {
  samples: number;
  /** The largest sum over the group at one sample. */
  peakRssBytes: number;
  peakPssBytes: number | undefined;
  /** Each process's own largest RSS (name and pid). */
  perProcess: Map<string, number>;
  /** Each process's CPU time (user + system) at the last sample, seconds since it started. */
  cpuSeconds: Map<string, number>;
};

/** Samples the group every `intervalMs` until stopped; answers the peaks seen. */
export function watchGroupMemory(pgid: number, intervalMs = 100): { stop: () => GroupPeak; peek: () => GroupPeak } {
  const peak: GroupPeak = { samples: 0, peakRssBytes: 0, peakPssBytes: undefined, perProcess: new Map(), cpuSeconds: new Map() };
  const sample = () => {
    const processes = groupPids(pgid).flatMap((pid) => sampleProcess(pid) ?? []);
    if (processes.length === 0) return;
    peak.samples++;
    const rss = processes.reduce((sum, p) => sum + p.rssBytes, 0);
    peak.peakRssBytes = Math.max(peak.peakRssBytes, rss);
    if (processes.every((p) => p.pssBytes !== undefined)) {
      const pss = processes.reduce((sum, p) => sum + p.pssBytes!, 0);
      peak.peakPssBytes = Math.max(peak.peakPssBytes ?? 0, pss);
    }
    for (const p of processes) {
      const key = `${p.name} (${p.pid})`;
      peak.perProcess.set(key, Math.max(peak.perProcess.get(key) ?? 0, p.rssBytes));
      peak.cpuSeconds.set(key, p.cpuSeconds);
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    peek: () => peak,
    stop: () => {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}
