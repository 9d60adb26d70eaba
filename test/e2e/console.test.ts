// The run console in a real browser: headless Chromium (driven by playwright-core)
// against `wrangler dev`. A person starts the default scripted run, watches its steps arrive,
// answers its question in place and sees it finish; starts a run on provider openai (against the
// fake OpenAI server) and sees its model named; on a phone-sized screen, opens a run by id and
// token, sees its history and denies an approval; cancels a waiting run; pauses, resumes and runs
// a schedule now, and opens its run. Screenshots go to
// test/e2e/.artifacts/ (gitignored) for a person to look at.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "../fake-openai/server";
import { startMcpServers, type McpTestServers } from "../mcp-server/server";
import { watchInbox } from "./support/inbox-watch";
import { ARTIFACTS, buildConsole, consolePage, launchChromium, openRun, text, WAIT } from "./support/console-browser";
import { LOCAL_TOKEN } from "./support/local-vars";
import { waitForEnd, waitForEvent, waitForEvents } from "./support/run-events";
import { startDevServer, type DevServer } from "./support/dev-server";
import { freePort } from "./support/http-server";

const PORT = await freePort();
const TOKEN = LOCAL_TOKEN;
/** The model of runs on provider openai (DEFAULT_OPENAI_MODEL of this dev server), priced as gpt-5.4-mini. */
const OPENAI_MODEL = "gpt-5.4-mini-console-e2e";

type Created = { run: { id: string }; token: string };

async function createRun(dev: DevServer, body: Record<string, unknown>): Promise<Created> {
  const response = await fetch(`${dev.url}/v1/runs`, {
    method: "POST",
    headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ provider: "scripted", ...body }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as Created;
}

async function getJson(dev: DevServer, path: string, token: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${dev.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe("the run console in Chromium", () => {
  const state = mkdtempSync(join(tmpdir(), "ratchet-console-"));
  const profile = mkdtempSync(join(tmpdir(), "ratchet-chromium-"));
  let dev: DevServer | undefined;
  let browser: BrowserContext | undefined;
  let fakeOpenAI: FakeOpenAI | undefined;

  beforeAll(async () => {
    buildConsole();
    fakeOpenAI = await startFakeOpenAI();
    dev = await startDevServer({ port: PORT, persistTo: state, vars: { OPENAI_API_KEY: "console-openai-key", OPENAI_BASE_URL: fakeOpenAI.url, DEFAULT_OPENAI_MODEL: OPENAI_MODEL } });
    browser = await launchChromium(profile);
  });

  afterAll(async () => {
    await browser?.close();
    await dev?.kill();
    await fakeOpenAI?.close();
    rmSync(state, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  });

  it("is served as static assets while /v1/* and unknown paths stay the Worker's", async () => {
    const page = await fetch(`${dev!.url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<script type="module" src="console.js"></script>');
    for (const file of ["console.js", "console.css"]) expect((await fetch(`${dev!.url}/console/${file}`)).status).toBe(200);
    // Its own script, style and origin only; nothing else may load or connect.
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await (await fetch(`${dev!.url}/v1/health`)).json()).toMatchObject({ ok: true });
    for (const path of ["/", "/console/nope.js"]) {
      const missing = await fetch(`${dev!.url}${path}`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({ error: { code: "not-found" } });
    }
  });

  it("starts the default scripted run, shows each step, takes the answer in place and shows the end", async () => {
    const { page, errors } = await consolePage(browser!, dev!.url);
    expect(await page.title()).toBe("Ratchet console");
    // Never a token filled in: the person types it.
    const tokenField = page.getByLabel("Deployment token", { exact: true });
    expect(await tokenField.inputValue()).toBe("");
    expect(await (await fetch(`${dev!.url}/console/`)).text()).not.toContain(TOKEN);
    await tokenField.fill(TOKEN);
    expect(JSON.parse(await page.getByLabel(/^Script/).inputValue())).toHaveLength(3);

    await page.getByRole("button", { name: "Start run" }).click();

    // Step 1: the calculator, with its result.
    await page.locator('.call[data-tool="calculator"][data-state="ok"]', { hasText: "391" }).waitFor(WAIT);
    // Step 2: the question, asked in place.
    const answer = page.getByLabel("Your answer");
    await answer.waitFor(WAIT);
    expect(await text(page.locator("#waiting-question"))).toBe("What should I call the result?");
    expect(await text(page.locator("#run-status"))).toBe("waiting");
    expect(await text(page.locator("#run-steps"))).toBe("2 of 10");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("waiting-answer");
    await page.screenshot({ path: join(ARTIFACTS, "console-waiting.png"), fullPage: true, animations: "disabled" });

    await answer.fill("The product");
    await page.getByRole("button", { name: "Answer", exact: true }).click();

    await page.locator("#final-text", { hasText: "Thank you, noted. The result is 391." }).waitFor(WAIT);
    expect(await text(page.locator("#run-status"))).toBe("finished");
    expect(await text(page.locator("#run-steps"))).toBe("3 of 10");
    expect(await text(page.locator("#run-cost"))).toBe("$0.0270");
    const [spent, budget] = await page.locator("#cost-meter").evaluate((meter) => [(meter as HTMLMeterElement).value, (meter as HTMLMeterElement).max]);
    expect(spent).toBeCloseTo(0.027, 10);
    expect(budget).toBe(0.1);
    expect(await text(page.locator("#budget-text"))).toBe("$0.0270 of $0.1000 (27%)");
    expect(await text(page.locator('.call[data-tool="ask"] .result'))).toBe("answered: The product");
    expect(await page.locator(".step").count()).toBe(3);
    expect(await page.locator("#waiting").isHidden()).toBe(true);
    expect(await page.locator("#cancel").isHidden()).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, "console-finished.png"), fullPage: true, animations: "disabled" });

    // What the page did is what the service holds.
    const runId = await text(page.locator("#run-id"));
    const runToken = await text(page.locator("#run-token"));
    expect(await getJson(dev!, `/v1/runs/${runId}`, runToken)).toMatchObject({ status: "finished", steps: 3, provider: "scripted" });
    const { messages } = (await getJson(dev!, `/v1/runs/${runId}/messages`, runToken)) as { messages: { role: string; content: unknown }[] };
    expect(messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual(["391", "The product"]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a run on provider openai renders like any other: its model named, its steps, its question and its end", async () => {
    fakeOpenAI!.script(OPENAI_MODEL, [
      { text: "Working it out.", toolCalls: [{ id: "call_calc", name: "calculator", input: { expression: "17 * 23" } }] },
      { text: "One question.", toolCalls: [{ id: "call_ask", name: "ask", input: { question: "What should I call 391?" } }] },
      { text: "Noted: 391 is the product." },
    ]);
    const { page, errors } = await consolePage(browser!, dev!.url);
    await page.getByLabel("Deployment token", { exact: true }).fill(TOKEN);
    await page.getByLabel("OpenAI").check();
    expect(await page.locator("#script-field").isHidden()).toBe(true);
    await page.getByRole("button", { name: "Start run" }).click();
    await page.locator('.call[data-tool="calculator"][data-state="ok"]', { hasText: "391" }).waitFor(WAIT);
    expect(await text(page.locator("#run-model"))).toBe(`${OPENAI_MODEL} (openai)`);
    const answer = page.getByLabel("Your answer");
    await answer.waitFor(WAIT);
    expect(await text(page.locator("#waiting-question"))).toBe("What should I call 391?");
    await answer.fill("The product");
    await page.getByRole("button", { name: "Answer", exact: true }).click();
    await page.locator("#final-text", { hasText: "Noted: 391 is the product." }).waitFor(WAIT);
    expect(await text(page.locator("#run-status"))).toBe("finished");
    expect(await text(page.locator("#run-cost"))).toMatch(/^\$0\.\d{4}$/);
    await page.screenshot({ path: join(ARTIFACTS, "console-openai.png"), fullPage: true, animations: "disabled" });
    expect(fakeOpenAI!.requests(OPENAI_MODEL).map((request) => request.outcome)).toEqual(["ok", "ok", "ok"]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows each compaction between steps", async () => {
    const { run, token } = await createRun(dev!, {
      messages: [{ role: "user", content: "Count to six with the calculator." }],
      tools: ["calculator"],
      minAnswerChars: 0,
      compaction: { mode: "summary", atTokens: 1_000 },
      script: [
        ...Array.from({ length: 6 }, (_v, i) => ({ text: `Step ${i + 1}. ${"Counting carefully. ".repeat(60)}`, toolCalls: [{ name: "calculator", input: { expression: `${i}+1` } }], costUsd: 0.001 })),
        { text: "Six.", costUsd: 0.001 },
      ],
    });
    const events = await waitForEvents(dev!.url, run.id, token, (seen) => seen.some((event) => event.type === "end"), { what: "its end" });
    const compactions = events.filter((event) => event.type === "compaction") as unknown as { tokensBefore: number; tokensAfter: number }[];
    expect(compactions.length).toBeGreaterThan(0);
    const { page, errors } = await consolePage(browser!, dev!.url);
    await openRun(page, run.id, token);
    await page.locator("#final-text", { hasText: "Six." }).waitFor(WAIT);
    // One note per compaction the run logged, each with its own figures.
    const figures = (n: number) => n.toLocaleString("en-US");
    expect(await page.locator(".compaction").allTextContents()).toEqual(
      compactions.map((event) => `Context compacted (summary): ${figures(event.tokensBefore)} → about ${figures(event.tokensAfter)} tokens`),
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows an MCP server's tools and marks each of their calls with the server", async () => {
    const servers: McpTestServers = await startMcpServers();
    try {
      const { run, token } = await createRun(dev!, {
        messages: [{ role: "user", content: "Echo hello." }],
        tools: ["calculator"],
        minAnswerChars: 0,
        mcpServers: [{ name: "main", url: `${servers.url}/mcp`, tools: ["echo", "files_read"] }],
        script: [
          { text: "Echoing.", toolCalls: [{ name: "main__echo", input: { text: "hello" } }, { name: "calculator", input: { expression: "1+1" } }], costUsd: 0.01 },
          { text: "Echoed.", costUsd: 0.01 },
        ],
      });
      await waitForEnd(dev!.url, { id: run.id, token });
      const { page, errors } = await consolePage(browser!, dev!.url);
      await openRun(page, run.id, token);
      await page.locator("#final-text", { hasText: "Echoed." }).waitFor(WAIT);
      expect(await text(page.locator('.mcp-tools[data-server="main"] p').first())).toBe("MCP server main: 1 tool (main__echo)");
      expect(await text(page.locator('.mcp-tools[data-server="main"] .refused'))).toBe("Left out: files_read (the server does not list it)");
      const call = page.locator('.call[data-tool="main__echo"]');
      expect(await text(call.locator(".badge.mcp"))).toBe("MCP main");
      expect(await text(call.locator(".result"))).toBe("echo: hello");
      expect(await call.getAttribute("data-state")).toBe("ok");
      // Other tools get no badge.
      expect(await page.locator('.call[data-tool="calculator"] .badge').count()).toBe(0);
      await page.screenshot({ path: join(ARTIFACTS, "console-mcp.png"), fullPage: true, animations: "disabled" });
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await servers.close();
    }
  });

  it("on a phone: opens a run by id and token, shows its history, and denies an approval in place", async () => {
    const { run, token } = await createRun(dev!, {
      messages: [{ role: "user", content: "Add 2 and 2, then send the report." }],
      tools: ["calculator", { type: "http", name: "send_report", description: "Sends the report.", inputSchema: { type: "object" }, url: "http://127.0.0.1:9/report", approval: true }],
      script: [
        { text: "Adding.", toolCalls: [{ name: "calculator", input: { expression: "2+2" } }], costUsd: 0.01 },
        { text: "Sending it.", toolCalls: [{ name: "send_report", input: { total: 4 } }], costUsd: 0.01 },
        { text: "Not sent, as you asked.", costUsd: 0.01 },
      ],
    });
    // Let the run reach its approval before the page opens it: the page then replays history.
    await waitForEvent(dev!.url, run.id, token, (event) => event.type === "waiting", { what: "its approval" });

    const { page, errors } = await consolePage(browser!, dev!.url, { phone: true });
    await openRun(page, run.id, token);

    await page.getByRole("button", { name: "Deny" }).waitFor(WAIT);
    expect(await text(page.locator(".prompt p"))).toBe("Add 2 and 2, then send the report.");
    expect(await text(page.locator('.call[data-tool="calculator"] .result'))).toBe("4");
    expect(await text(page.locator("#waiting-question"))).toBe("May the run call send_report?");
    // A run opened by id shows its own step limit (the server reports it).
    expect(await text(page.locator("#run-steps"))).toBe("2 of 10");
    await page.locator("#run").scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, "console-phone-approval.png"), animations: "disabled" });

    await page.getByRole("button", { name: "Deny" }).click();
    await page.locator("#final-text", { hasText: "Not sent, as you asked." }).waitFor(WAIT);
    expect(await text(page.locator("#run-status"))).toBe("finished");
    // The denial reaches the model as the call's result.
    expect(await text(page.locator('.call[data-tool="send_report"] .result'))).toBe("Denied by the person.");
    await page.screenshot({ path: join(ARTIFACTS, "console-phone-finished.png"), fullPage: true, animations: "disabled" });

    // A reload in the same tab reopens the run from the address (#<run id>), history and all.
    await page.reload();
    await page.locator("#final-text", { hasText: "Not sent, as you asked." }).waitFor(WAIT);
    expect(await page.locator(".step").count()).toBe(3);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("the inbox: a user token lists the runs waiting for its person, new questions arrive live, each is answered in place", async () => {
    const subject = `console-${Date.now()}`;
    const minted = await fetch(`${dev!.url}/v1/tokens`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ subject, ttlSeconds: 600 }),
    });
    expect(minted.status).toBe(201);
    const { token: userToken } = (await minted.json()) as { token: string };
    const asking = (title: string, question: string, choices?: string[]) => ({
      provider: "scripted",
      subject,
      messages: [{ role: "user", content: title }],
      tools: ["ask"],
      metadata: { title },
      script: [{ toolCalls: [{ name: "ask", input: choices === undefined ? { question } : { question, choices } }] }, { text: `${title}: done.` }],
    });
    // The backend starts the runs for its person (the scripted provider is the deployment token's alone).
    const create = async (body: Record<string, unknown>) => {
      const response = await fetch(`${dev!.url}/v1/runs`, { method: "POST", headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
      expect(response.status).toBe(201);
      return ((await response.json()) as Created).run.id;
    };
    // The person's inbox stream tells when both runs wait (the listing the page reads is the inbox's).
    const inbox = watchInbox({ base: dev!.url, token: userToken });
    const first = await create(asking("Trip to Lisbon", "Which day do you leave?"));
    const second = await create(asking("Dinner", "Table for how many?", ["Two", "Four"]));
    const waits = (runId: string) => inbox.events.some((event) => event.type === "run-waiting" && event.run.id === runId);
    await inbox.until(() => waits(first) && waits(second), 20_000, () => `the inbox did not see both runs wait: ${JSON.stringify(inbox.events.map((event) => [event.type, event.run.id]))}`);
    inbox.close();
    expect(((await getJson(dev!, "/v1/runs?status=waiting", userToken)) as { runs: unknown[] }).runs).toHaveLength(2);

    const { page, errors } = await consolePage(browser!, dev!.url, { phone: true });
    const tokenField = page.getByLabel(/^User token/);
    expect(await tokenField.inputValue()).toBe("");
    await tokenField.fill(userToken);
    await page.getByRole("button", { name: "Open inbox" }).click();

    const item = (runId: string) => page.locator(`.inbox-item[data-run="${runId}"]`);
    await item(first).waitFor(WAIT);
    await item(second).waitFor(WAIT);
    expect(await text(item(first).locator(".question"))).toBe("Which day do you leave?");
    expect(await text(item(second).locator(".question"))).toBe("Table for how many?");
    // Newest first.
    expect(await page.locator(".inbox-item").first().getAttribute("data-run")).toBe(second);

    // A run that asks while the inbox is open arrives through the inbox stream.
    const third = await create(asking("Gift", "Which colour?"));
    await item(third).waitFor(WAIT);
    await page.screenshot({ path: join(ARTIFACTS, "console-inbox.png"), fullPage: true, animations: "disabled" });

    await item(first).getByLabel("Your answer (Trip to Lisbon)").fill("Friday");
    await item(first).getByRole("button", { name: "Answer", exact: true }).click();
    await item(first).waitFor({ state: "detached", ...WAIT });
    await item(second).getByRole("button", { name: "Four" }).click();
    await item(second).waitFor({ state: "detached", ...WAIT });
    expect(await page.locator(".inbox-item").count()).toBe(1);

    for (const [runId, answer] of [[first, "Friday"], [second, "Four"]] as const) {
      await waitForEnd(dev!.url, { id: runId, token: userToken });
      expect((await getJson(dev!, `/v1/runs/${runId}`, userToken)).status).toBe("finished");
      const { messages } = (await getJson(dev!, `/v1/runs/${runId}/messages`, userToken)) as { messages: { role: string; content: unknown }[] };
      expect(messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual([answer]);
    }
    // Opened from the inbox, a run shows in the run panel (the user token reads its own runs).
    await item(third).getByRole("button", { name: "Open run" }).click();
    await page.locator("#waiting-question", { hasText: "Which colour?" }).waitFor(WAIT);
    expect(await text(page.locator("#run-id"))).toBe(third);
    await page.screenshot({ path: join(ARTIFACTS, "console-inbox-answered.png"), fullPage: true, animations: "disabled" });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("the schedules: a schedule's next fire and last runs, paused and resumed, run now, and a run opened from it", async () => {
    const subject = `console-schedule-${Date.now()}`;
    const created = await fetch(`${dev!.url}/v1/schedules`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ cron: "0 8 * * 1-5", timezone: "Europe/Paris", subject, run: { provider: "scripted", messages: [{ role: "user", content: "Digest" }], script: [{ text: "Digest sent." }] } }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { schedule } = (await created.json()) as { schedule: { id: string; nextAt: string } };

    const { page, errors } = await consolePage(browser!, dev!.url);
    // The Agents card asks for a token too: the Schedules card's own fields.
    const card = page.getByRole("region", { name: "Schedules" });
    await card.getByLabel(/^Token/).fill(TOKEN);
    await card.getByLabel(/^Subject/).fill(subject);
    await card.getByRole("button", { name: "Show schedules" }).click();
    const item = page.locator(`.schedule-item[data-schedule="${schedule.id}"]`);
    await item.waitFor(WAIT);
    expect(await text(item.locator("h3"))).toBe("0 8 * * 1-5 (Europe/Paris)");
    expect(await text(item.locator(".next-fire"))).toContain("Next fire:");
    expect(await text(item)).toContain("No run yet.");

    await item.getByRole("button", { name: "Pause" }).click();
    await page.locator(`.schedule-item[data-schedule="${schedule.id}"][data-paused="true"]`).waitFor(WAIT);
    expect(await text(item.locator(".next-fire"))).toBe("Paused: no next fire.");
    expect(((await getJson(dev!, `/v1/schedules/${schedule.id}`, TOKEN)) as { schedule: { paused: boolean } }).schedule.paused).toBe(true);
    await item.getByRole("button", { name: "Resume" }).click();
    await page.locator(`.schedule-item[data-schedule="${schedule.id}"][data-paused="false"]`).waitFor(WAIT);

    await item.getByRole("button", { name: "Run now" }).click();
    const run = item.locator(".schedule-runs li");
    await run.first().waitFor(WAIT);
    const runId = (await run.first().getAttribute("data-run"))!;
    expect(await text(item.locator(".last-fire"))).toContain("started");
    await page.screenshot({ path: join(ARTIFACTS, "console-schedules.png"), fullPage: true, animations: "disabled" });
    await run.first().getByRole("button", { name: "Open" }).click();
    await page.locator("#final-text", { hasText: "Digest sent." }).waitFor(WAIT);
    expect(await text(page.locator("#run-id"))).toBe(runId);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("cancels a waiting run; a wrong token is refused with the API's message", async () => {
    const { run, token } = await createRun(dev!, {
      messages: [{ role: "user", content: "?" }],
      tools: ["ask"],
      script: [{ toolCalls: [{ name: "ask", input: { question: "Shall I go on?", choices: ["Yes", "No"] } }] }],
    });
    const page = await browser!.newPage();
    await page.goto(`${dev!.url}/console/`);
    await page.getByLabel("Run id").fill(run.id);
    await page.getByLabel(/^Run token/).fill("rt_" + "x".repeat(43));
    await page.getByRole("button", { name: "Open", exact: true }).click();
    await page.locator("#open-error", { hasText: "not-found" }).waitFor(WAIT);

    await page.getByLabel(/^Run token/).fill(token);
    await page.getByRole("button", { name: "Open", exact: true }).click();
    await page.getByRole("button", { name: "Yes" }).waitFor(WAIT);
    await page.getByRole("button", { name: "Cancel run" }).click();
    await page.locator('#run-status[data-status="cancelled"]').waitFor(WAIT);
    expect(await page.locator("#waiting").isHidden()).toBe(true);
    expect(await getJson(dev!, `/v1/runs/${run.id}`, token)).toMatchObject({ status: "cancelled", stoppedBy: "cancel" });
    await page.close();
  });
});
