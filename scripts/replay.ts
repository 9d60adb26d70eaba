// `npm run replay -- <recording.json> [more.json …]`: runs today's loop against each recording (GET
// /v1/runs/:id/export) with no network. Prints OK with the step count, or the first divergence
// (segment, step key, and the path of the first differing field in the request), and exits 1.
// Steps are counted as the run view counts them (model calls). A file that cannot be read or is no
// recording is one line on stderr, never a stack. Both recording formats are read (format 1, each
// request whole, from before; format 2, requests as deltas, what the export writes now).
import { readFile } from "node:fs/promises";
import { replayRecording } from "../src/replay/replay";
import { RECORDING_FORMATS, type AnyRecording } from "../src/replay/recording";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: npm run replay -- <recording.json> [more.json …]");
  process.exit(2);
}
/** The file's recording, or the one line that says why there is none. */
async function read(file: string): Promise<AnyRecording | string> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? `${file}: no such file` : `${file}: cannot be read (${code ?? "unknown error"})`;
  }
  try {
    return JSON.parse(text) as AnyRecording;
  } catch {
    return `${file}: not JSON (a recording is the body of GET /v1/runs/:id/export)`;
  }
}

let failed = false;
for (const file of files) {
  const recording = await read(file);
  if (typeof recording === "string") {
    console.error(recording);
    failed = true;
    continue;
  }
  if (!(RECORDING_FORMATS as readonly string[]).includes(recording.format)) {
    console.error(`${file}: not a recording (format ${JSON.stringify(recording.format)}, expected ${RECORDING_FORMATS.join(" or ")})`);
    failed = true;
    continue;
  }
  const started = performance.now();
  const result = await replayRecording(recording);
  const ms = (performance.now() - started).toFixed(1);
  if (result.ok) console.log(`OK ${file}: ${result.steps} steps replayed in ${ms} ms`);
  else {
    failed = true;
    console.log(`DIVERGED ${file}: segment ${result.segment}, step ${result.key}${result.path === undefined ? "" : `, first differing field: ${result.path}`}\n  ${result.message}`);
  }
}
process.exit(failed ? 1 : 0);
