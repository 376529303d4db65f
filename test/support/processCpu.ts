// The CPU time a process tree has used, read from /proc (Linux): a run that is silent but working (screening
// children in sandboxes prints and writes nothing for minutes on a loaded machine) still uses CPU; a hung one does not.
import { readdirSync, readFileSync } from 'node:fs';

/** Linux's USER_HZ, the unit of /proc/<pid>/stat times; 100 on every Linux this runs on (getconf CLK_TCK). */
const ticksPerSecond = 100;

interface ProcStat {
  ppid: number;
  /** utime + stime + cutime + cstime: its own time and that of the children it has waited for. */
  ticks: number;
}

function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: the fields after it start at the last ')'.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // f[0] is field 3 (state), so field n is f[n - 3]: ppid 4, utime 14, stime 15, cutime 16, cstime 17.
  return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) };
}

/** Milliseconds of CPU used by `pid` and its live descendants (and the children they have reaped); 0 when it is gone. */
export function treeCpuMs(pid: number): number {
  const stats = new Map<number, ProcStat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = readStat(Number(name));
    if (s) stats.set(Number(name), s);
  }
  const inTree = new Set<number>(stats.has(pid) ? [pid] : []);
  // Parents are not always listed before their children (pids wrap), so grow the tree until it stops growing.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [p, s] of stats) if (!inTree.has(p) && inTree.has(s.ppid)) grew = inTree.add(p).size > 0;
  }
  let ticks = 0;
  for (const p of inTree) ticks += stats.get(p)!.ticks;
  return (ticks * 1000) / ticksPerSecond;
}
