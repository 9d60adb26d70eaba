// Tests wait on states, not on clocks (test/README.md): a test that needs a model call in flight
// holds it (a scripted turn's `hold`, released by the test), a test of time moves an injected clock
// or fires an alarm by hand, and a wait for something ends on the thing itself (an event, a
// request that arrived), with a deadline only to fail it. This reads test/ and lists every bare
// sleep: a pause for a fixed time (`sleep(ms)`, `setTimeout(resolve, ms)`, `waitForTimeout`) and a
// scripted model turn's `delayMs`, which a test would otherwise race against a browser or a kill.
// Each file that still has one is on the allow list below with how many and why; a new one fails.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, sourcesUnder } from "./support/source-files";

/** The local servers' own directories: their delays are what a script asks of them, not a test's wait. */
const SERVERS = ["test/fake-anthropic/", "test/fake-openai/", "test/mcp-server/", "test/webhook-receiver/", "test/tool-server/", "test/push-service/", "test/otlp-receiver/"];

/** Files that keep bare sleeps, how many, and why each is not a race. Keep it short: prefer a hold, an event, or an injected clock. */
const ALLOWED: Record<string, { sleeps: number; why: string }> = {
  "test/providers/scripted.test.ts": { sleeps: 1, why: "the scripted provider's own test of delayMs: the delay is cut short by an abort at once, nothing waits for it" },
  "test/durable/sse-stream.test.ts": {
    sleeps: 3,
    why: "zero-delay yields that let the stream's pull run before checking it read no more; and one timer set after the stream's own PROBE_WAIT_MS timer and due later (timers fire in the order they are due), to show no read follows the probe's wait",
  },
  "test/e2e/support/dev-server.ts": {
    sleeps: 3,
    why: "the pause between two health checks while wrangler dev starts, between two tries to bind a killed server's port before a restart on it, and between two looks at a stopped npm start's process group: waits for a state no process announces, bounded by their deadlines",
  },
  "test/e2e/support/fake-vendor.ts": { sleeps: 2, why: "the fake vendors' own pacing (a script's delayMs and eventDelayMs; the written frames leave before a cut): what the server does, not what a test waits on" },
  "test/e2e/crash-children.test.ts": {
    sleeps: 8,
    why: "the turns' delays only spread the children's steps so the kill finds work in flight (every wait is on a stored event or the tool server's calls); the two sleeps pace polls of the parents' views, waits for a state bounded by a count",
  },
  "test/e2e/crash.test.ts": { sleeps: 3, why: "the turns' delays only spread the steps so the kill finds work in flight; every wait is on a stored event or the tool server's calls, and no assertion needs a delay to win" },
  "test/e2e/console-timeline.test.ts": { sleeps: 3, why: "the turns' delays give each model call's bar a width to draw; every wait is on a stored event or a drawn bar" },
  "test/e2e/fanout.test.ts": { sleeps: 1, why: "the turns' delays spread the run's events over time for its watchers; every wait is on the events themselves" },
  "test/e2e/otel-crash.test.ts": {
    sleeps: 1,
    why: "the turns' delays keep the run going while its spans export, so the kill (after three chat spans arrived) lands mid-run; a hold cannot do it, as a held slice exports no spans until it ends; every assertion holds if the run had finished first",
  },
  "test/service/interrupt-cost.test.ts": {
    sleeps: 1,
    why: "the fake vendor holds its answer past the test (nothing streams, so no usage comes before the interrupt, which a scripted hold cannot show on a real provider); the interrupt and a cancel end the call, nothing waits for the delay",
  },
  "test/e2e/quiet-log.test.ts": {
    sleeps: 2,
    why: "the quiet spell after an SSE reader left is the scenario reproduced (a newcomer waited 6 s), not a wait for anything; and the pause between two reads of the push subscriptions, a wait for their recorded attempts bounded by its deadline",
  },
  "test/helpers/rate-limit-window.ts": {
    sleeps: 1,
    why: "the rate limiter counts in windows aligned to the wall clock, which no helper moves: a test that would start in a window's last 20 s waits for the next one, so its counts never straddle two windows",
  },
  "test/e2e/sse-reader-gone.test.ts": { sleeps: 1, why: "the answer's delay leaves a quiet spell so the stream writes its probe; the test waits on the runs' ends and their log lines" },
};


/** A pause for a fixed time: sleep(ms), setTimeout(resolve, ms), Playwright's waitForTimeout. */
const PAUSE = /\bsleep\(\s*[^)\s]|setTimeout\(\s*(?:resolve|res|r|done|next)\s*[,)]|\.waitForTimeout\(/g;
/** A scripted model turn's delay (a turn literal on the line: text or toolCalls), or a script helper's delay per step. */
const TURN_DELAY = /\bdelayMs:\s*(?:\d|\(\))/g;
const TURN = /\b(?:text|toolCalls):/;

/** How many bare sleeps `source` holds. */
function sleepsIn(source: string): number {
  let found = 0;
  for (const line of source.split("\n")) {
    found += line.match(PAUSE)?.length ?? 0;
    const delays = line.match(TURN_DELAY)?.length ?? 0;
    if (delays > 0 && (TURN.test(line) || /delayMs:\s*\(\)/.test(line))) found += delays;
  }
  return found;
}

function sleepsByFile(): Record<string, number> {
  const found: Record<string, number> = {};
  for (const file of sourcesUnder("test")) {
    if (SERVERS.some((dir) => file.startsWith(dir)) || file === "test/e2e/no-sleeps.test.ts") continue;
    const count = sleepsIn(readFileSync(resolve(ROOT, file), "utf8"));
    if (count > 0) found[file] = count;
  }
  return found;
}

describe("no test races the clock", () => {
  it("every bare sleep under test/ is on the allow list, with its reason; a new one fails", () => {
    const found = sleepsByFile();
    const over = Object.entries(found)
      .filter(([file, count]) => count > (ALLOWED[file]?.sleeps ?? 0))
      .map(([file, count]) => `${file}: ${count} bare sleep(s), ${ALLOWED[file]?.sleeps ?? 0} allowed`);
    expect(over, "wait on a state instead (a scripted turn's hold, an event, an injected clock, runDurableObjectAlarm), or list the file with its reason").toEqual([]);
  });

  it("the allow list is exact: a file that lost its sleeps leaves the list", () => {
    const found = sleepsByFile();
    const stale = Object.entries(ALLOWED)
      .filter(([file, { sleeps }]) => (found[file] ?? 0) !== sleeps)
      .map(([file, { sleeps }]) => `${file}: ${found[file] ?? 0} found, ${sleeps} listed`);
    expect(stale).toEqual([]);
    for (const [file, { why }] of Object.entries(ALLOWED)) expect(why.length, file).toBeGreaterThan(20);
  });

  it("finds each form of a bare sleep, and not a deadline or a function's parameter", () => {
    expect(sleepsIn("await sleep(200);")).toBe(1);
    expect(sleepsIn("await new Promise((resolve) => setTimeout(resolve, 100));")).toBe(1);
    expect(sleepsIn("await new Promise((r) => setTimeout(r, 5));")).toBe(1);
    expect(sleepsIn("await page.waitForTimeout(500);")).toBe(1);
    expect(sleepsIn('script: [{ text: "Adding.", delayMs: 1_500, toolCalls: [] }],')).toBe(1);
    expect(sleepsIn("toolRunBody(label, 3, tool, { delayMs: () => 30 })")).toBe(1);
    // A deadline that fails a wait, a scripted hold, and a function's own delay parameter are not sleeps.
    expect(sleepsIn("const timer = setTimeout(() => fail(`${timeoutMs} ms passed`), timeoutMs);")).toBe(0);
    expect(sleepsIn('script: [{ hold: "first", text: "Adding." }],')).toBe(0);
    expect(sleepsIn("expect(nextAlarm({ running: true, now, delayMs: 250 })).toBe(now + 250);")).toBe(0);
    expect(sleepsIn("const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));")).toBe(1);
  });
});
