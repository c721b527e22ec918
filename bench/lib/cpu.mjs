// CPU time a process has used, in seconds, at nanosecond grain: the sum of its threads' run time
// as the scheduler counts it (/proc/<pid>/task/<tid>/schedstat, Linux). /proc/<pid>/stat counts
// whole 10 ms ticks, which over a 10 s idle window are steps of 0.1 % of a core: the size of the
// idle targets themselves. A thread that exits between two reads takes its time with it (rare in
// an idle window: Node's, V8's and Qt's threads live as long as the process).
import { readdirSync, readFileSync } from 'node:fs';

export function cpuSeconds(pid) {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return ns / 1e9;
}
