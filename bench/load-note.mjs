// Prints the load average with a bench's name (`node bench/load-note.mjs <bench> <when>`): for the
// benches inside workerd, which has no load average to read (its node:os says 0).
import { cpus, loadavg } from "node:os";

const [bench = "bench", when = "now"] = process.argv.slice(2);
const [one, five, fifteen] = loadavg().map((value) => value.toFixed(2));
console.log(`[bench:${bench}] load average ${when}: ${one} (1 min), ${five} (5 min), ${fifteen} (15 min); ${cpus().length} cores`);
