// A tool that never answers, against a real `wrangler dev` (part of `npm run chaos`; 30 s is too
// long for the fast suite): the run gives up on the call after the documented 30 s, the model sees
// the error result "did not answer within 30 seconds", the run goes on to its end, and the call
// was sent once and abandoned by the run (its connection closed without an answer).
// Exits non-zero when any of that does not hold. `node bench/ts.mjs bench/tool-timeout.ts`
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRun, getMessages, getRun } from "../test/e2e/support/api";
import { until } from "./support/poll";
import { snapshotProject, startDevServer } from "../test/e2e/support/dev-server";
import { startFaultToolServer } from "../test/e2e/support/fault-tool-server";
import { httpTool } from "../test/e2e/support/scripts";
import { verdict } from "./support/verdict";
import { freePort } from "../test/e2e/support/http-server";

const PORT = await freePort();
const log = (line: string) => console.log(`[tool-timeout] ${line}`);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ratchet-timeout-"));
  const snapshot = snapshotProject();
  const tools = await startFaultToolServer();
  const dev = await startDevServer({ port: PORT, persistTo: dir, cwd: snapshot.dir });
  const failures: string[] = [];
  try {
    const started = Date.now();
    const run = await createRun(dev.url, "dev-token", {
      messages: [{ role: "user", content: "a tool that never answers" }],
      tools: [httpTool("hang", `${tools.url}/hang`)],
      script: [{ text: "Calling.", toolCalls: [{ name: "hang", input: { n: 1 } }] }, { text: "It timed out; I carried on." }],
    });
    // No client action until the run has ended: the tool server shows when the call was given up.
    await until(() => [...tools.calls.values()].some((call) => call.abandoned > 0), 90_000, () => "the call was never given up", 200);
    await until(async () => (await getRun(dev.url, run.id, run.token)).status !== "running", 30_000, () => "the run did not end", 200);
    const view = await getRun(dev.url, run.id, run.token);
    const result = (await getMessages(dev.url, run.id, run.token)).find((message) => message.role === "tool");
    const call = [...tools.calls.values()][0]!;
    const waited = (call.abandonedAt[0]! - call.arrivals[0]!) / 1000;
    if (view.status !== "finished" || view.finalText !== "It timed out; I carried on.") failures.push(`run ended ${JSON.stringify(view)}`);
    if (result?.isError !== true || !/did not answer within 30 seconds/.test(String(result.content))) failures.push(`tool result ${JSON.stringify(result)}`);
    if (call.arrivals.length !== 1) failures.push(`the call was sent ${call.arrivals.length} times`);
    if (waited < 29.5 || waited > 40) failures.push(`the call was given up after ${waited} s`);
    log(`the call was given up after ${waited.toFixed(1)} s; the model saw: ${JSON.stringify(result?.content)}; run ${view.status} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await dev.kill();
    await tools.close();
    rmSync(dir, { recursive: true, force: true });
    snapshot.remove();
  }
  verdict(failures, log, "OK: a tool that never answers becomes an error result after 30 s and the run goes on");
}

await main();
