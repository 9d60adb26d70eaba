// Experiments in the console, in headless Chromium against `wrangler dev` (scripted provider): three
// runs are recorded and made a dataset, an experiment runs them again with another system prompt
// (docs/evals.md's example), each case's model call held until the test releases it. The console
// lists the experiment, its page shows the cases running and then, live from its events, ended:
// the case table with each score and its reason, the one regression first with its delta against
// the recordings and its divergence; a case's run opens in the run panel beside its recording,
// which opens too; the CSV report downloads. The form starts one of a dataset and an agent's
// version. A case that cannot fit in the budget shows skipped, with why. A running experiment's
// Cancel cancels it; a wrong token or a body the API refuses is
// refused in the API's words; on a phone the table scrolls in its own region.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { releaseHold, request } from "./support/api";
import { arithmeticDataset } from "./support/arithmetic-dataset";
import { consolePage, text, WAIT } from "./support/console-browser";
import { consoleFixture } from "./support/console-fixture";
import { LOCAL_TOKEN } from "./support/local-vars";

type Case = { n: number; state: string; runId?: string; sourceRunId?: string };
type Experiment = { id: string; status: string; cases: Case[] };

/** A dataset of three recordings (2+2, 2+2, 3*3), each with its own answer as its reference; its name. */
async function arithmetic(base: string): Promise<{ name: string; runs: string[] }> {
  const name = `arithmetic-${crypto.randomUUID().slice(0, 8)}`;
  return { name, runs: await arithmeticDataset(base, LOCAL_TOKEN, name, { system: "Answer in words." }) };
}

/** An experiment of `dataset` whose every case asks 2+2 and answers "Four.", its first model call held on `hold`. */
async function experiment(base: string, dataset: string, hold: string, name: string, fields: Record<string, unknown> = {}): Promise<Experiment> {
  const made = await request(base, "/v1/experiments", LOCAL_TOKEN, {
    method: "POST",
    body: JSON.stringify({
      ...fields,
      name,
      dataset,
      variant: { system: "Answer with the number in words, nothing else.", script: [{ hold, toolCalls: [{ name: "calculator", input: { expression: "2+2" } }] }, { text: "Four." }], budget: { usd: 0.05 } },
      scorers: [{ type: "exact" }, { type: "tool-called", tool: "calculator" }],
      baseline: "recordings",
    }),
  });
  expect(made.status, await made.clone().text()).toBe(201);
  return ((await made.json()) as { experiment: Experiment }).experiment;
}

async function showExperiments(page: Page, token: string): Promise<void> {
  await page.locator("#experiments-token").fill(token);
  await page.getByRole("button", { name: "Show experiments" }).click();
}

/** The case runs' ids, read from the table's run links once every case has started. */
async function caseRunIds(page: Page, cases: number): Promise<string[]> {
  const links = page.getByRole("button", { name: /^Case \d+'s run$/ });
  await expect.poll(() => links.count(), WAIT).toBe(cases);
  return Promise.all((await links.all()).map(async (link) => (await link.getAttribute("data-run"))!));
}

describe("experiments in the console", () => {
  const fixture = consoleFixture("console-experiments", "free");

  it("lists an experiment, follows it live, shows its case table with the regression first, and opens a case's run beside its recording", async () => {
    const base = fixture.dev.url;
    const { name: dataset, runs } = await arithmetic(base);
    const title = `system prompt ${crypto.randomUUID().slice(0, 6)}`;
    const made = await experiment(base, dataset, "answer", title);
    const { page, errors } = await consolePage(fixture.browser, base);

    // A token that is not the deployment's is refused, in the API's words.
    await showExperiments(page, "not-the-token");
    await page.locator("#experiments-form-error").waitFor({ state: "visible", ...WAIT });
    expect(await text(page.locator("#experiments-form-error"))).toMatch(/\(unauthorized\)$/);

    await showExperiments(page, LOCAL_TOKEN);
    const item = page.locator(`[data-experiment="${made.id}"]`);
    await item.waitFor(WAIT);
    expect(await text(item.locator("h3"))).toBe(title);
    expect(await text(item.locator(".hint").first())).toBe(`${made.id} · dataset ${dataset} v1 · replay`);
    await item.getByRole("button", { name: `Open experiment ${title}` }).click();

    // Running: every case's model call is held, so the page shows them running until released.
    const page_ = page.locator("#experiment");
    await page_.waitFor({ state: "visible", ...WAIT });
    expect(await text(page.locator("#experiment-id"))).toBe(title);
    expect(await text(page.locator("#experiment-variant"))).toBe("changed: system, budget, script");
    expect(await text(page.locator("#experiment-baseline"))).toBe("the recordings");
    const ids = await caseRunIds(page, 3);
    expect(await text(page.locator("#experiment-status"))).toBe("running");
    expect(await page.getByRole("button", { name: "Cancel experiment" }).isVisible()).toBe(true);
    expect(await text(page.locator("#experiment-progress-text"))).toBe("0 of 3 ended, 3 running");

    // Released, the cases end; the page hears it from the experiment's events, with no reload.
    for (const id of ids) await releaseHold(base, LOCAL_TOKEN, id, "answer");
    await page.locator("#experiment-status[data-status=finished]").waitFor(WAIT);
    expect(await text(page.locator("#experiment-progress-text"))).toBe("3 of 3 ended (3 done)");
    expect(await page.getByRole("button", { name: "Cancel experiment" }).isVisible()).toBe(false);
    // The comparison is read again as each case ends: the page settles on the last one.
    await expect.poll(() => text(page.locator("#experiment-totals")), WAIT).toMatch(/^Against the recordings: 3 cases · 1 regression · 0 improvements · exact 0\.67 \(−0\.33 vs 1\) · tool-called:calculator 1 \(±0 vs 1\) · cost \$/);

    // The regression comes first: case 3 answered "Four." where its recording said "Nine.".
    const rows = page.locator("#case-rows tr");
    await expect.poll(async () => (await rows.first().getAttribute("data-case")) ?? "", WAIT).toBe("3");
    expect(await rows.evaluateAll((all) => all.map((row) => row.getAttribute("data-case")))).toEqual(["3", "1", "2"]);
    const regression = rows.first();
    expect(await regression.getAttribute("data-regression")).toBe("true");
    expect(await text(regression.locator(".case-state"))).toBe("doneregression");
    const exact = regression.locator('[data-scorer="exact"]');
    expect(await text(exact.locator("summary"))).toBe("exact 0 −1 vs 1");
    expect(await exact.locator(".reason").isVisible()).toBe(false);
    await exact.locator("summary").click();
    expect(await exact.locator(".reason").isVisible()).toBe(true);
    expect(await text(exact.locator(".reason"))).not.toBe("");
    expect(await exact.locator("summary").getAttribute("title")).toBe(await text(exact.locator(".reason")));
    expect(await text(regression.locator('[data-scorer="tool-called:calculator"] summary'))).toBe("tool-called:calculator 1 ±0 vs 1");
    // Its divergence: the 2+2 call had no recording and was refused, the recorded 3*3 never made.
    const divergence = regression.locator(".case-divergence");
    expect(await text(divergence.locator("summary"))).toBe("0 from the recording · 1 call with no recording (1 refused) · 1 recorded call never made · 1 argument mismatch · request differs from step 1 (system)");
    await divergence.locator("summary").click();
    expect(await divergence.locator("li").allTextContents()).toEqual([
      'Step 1: calculator {"expression":"2+2"} had no recording (refused).',
      'Recorded step 1: calculator {"expression":"3*3"} was never made.',
      'Step 1: calculator at expression: recorded "3*3", new "2+2".',
    ]);
    expect(await text(rows.nth(1).locator(".case-divergence"))).toBe("1 from the recording · request differs from step 1 (system)");
    expect(await rows.nth(1).getAttribute("data-regression")).toBe("false");

    // Case 3's run opens in the run panel, beside its recording.
    const caseRun = await regression.getByRole("button", { name: "Case 3's run" }).getAttribute("data-run");
    await regression.getByRole("button", { name: "Case 3's run" }).click();
    await page.locator("#run-id", { hasText: caseRun! }).waitFor(WAIT);
    await page.locator("#final-text", { hasText: "Four." }).waitFor(WAIT);
    const box = page.locator("#fork-of");
    expect(await text(box.locator("h3"))).toBe(`Case 3 of experiment ${made.id}`);
    await box.locator(".source-spent", { hasText: /over 2 steps \(finished\)$/ }).waitFor(WAIT);
    // The recording opens from beside it (and from the table): the run the case replayed.
    await box.locator(`[data-source="${runs[2]}"]`).click();
    await page.locator("#run-id", { hasText: runs[2]! }).waitFor(WAIT);
    await page.locator("#final-text", { hasText: "Nine." }).waitFor(WAIT);
    expect(await box.isHidden()).toBe(true);
    await rows.nth(1).getByRole("button", { name: "Case 1's recording" }).click();
    await page.locator("#run-id", { hasText: runs[0]! }).waitFor(WAIT);

    // The report downloads as CSV: one row per case, the regression marked.
    const [download] = await Promise.all([page.waitForEvent("download", WAIT), page.getByRole("link", { name: "CSV" }).click()]);
    expect(download.suggestedFilename()).toBe(`${made.id}.csv`);
    const chunks: Buffer[] = [];
    for await (const chunk of (await download.createReadStream())!) chunks.push(chunk as Buffer);
    const csv = Buffer.concat(chunks).toString("utf8").trim().split("\n");
    expect(csv[0]).toMatch(/^case,state,/);
    expect(csv.slice(1).map((line) => [line.split(",")[0], line.includes(",true,")])).toEqual([["1", false], ["2", false], ["3", true]]);
    // Chromium logs the refused token's answer; nothing else went wrong.
    expect(errors).toEqual(["console: Failed to load resource: the server responded with a status of 401 (Unauthorized)"]);
  }, 180_000);

  it("starts an experiment of a dataset and an agent's version from the form: a refusal in the API's words, then the experiment opens and ends", async () => {
    const base = fixture.dev.url;
    const { name: dataset } = await arithmetic(base);
    const agent = `adder-${crypto.randomUUID().slice(0, 8)}`;
    const run = { provider: "scripted", tools: ["calculator"], minAnswerChars: 0, budget: { usd: 0.05 }, script: [{ toolCalls: [{ name: "calculator", input: { expression: "2+2" } }] }, { text: "Four." }] };
    const stored = await request(base, "/v1/agents", LOCAL_TOKEN, { method: "POST", body: JSON.stringify({ name: agent, description: "Adds two and two.", run }) });
    expect(stored.status, await stored.clone().text()).toBe(201);
    const { page, errors } = await consolePage(fixture.browser, base);
    await showExperiments(page, LOCAL_TOKEN);
    await page.getByText("Start an experiment").click();
    await page.getByLabel("Dataset", { exact: true }).selectOption(dataset);
    await page.getByLabel("Variant", { exact: true }).selectOption({ label: `Agent ${agent} · v1` });
    expect(await page.locator("#experiment-changes").isVisible()).toBe(false);
    const title = `agent ${crypto.randomUUID().slice(0, 6)}`;
    await page.getByLabel(/^Name/).fill(title);
    await page.getByLabel(/^Baseline/).fill("recordings");
    // No scorer: the API refuses, and the form says where, in the API's words.
    await page.getByLabel(/^Scorers/).fill("[]");
    await page.getByRole("button", { name: "Start experiment" }).click();
    const refusal = page.locator("#experiment-form-error");
    await refusal.waitFor({ state: "visible", ...WAIT });
    expect(await text(refusal)).toContain("(invalid-request)");
    expect(await text(refusal)).toContain("• scorers: At least one scorer.");

    await page.getByLabel(/^Scorers/).fill('[{ "type": "exact" }]');
    await page.getByRole("button", { name: "Start experiment" }).click();
    await page.locator("#experiment-id", { hasText: title }).waitFor(WAIT);
    expect(await text(page.locator("#experiment-variant"))).toBe(`agent ${agent} · v1`);
    await page.locator("#experiment-status[data-status=finished]").waitFor(WAIT);
    await expect.poll(() => text(page.locator("#experiment-totals")), WAIT).toMatch(/^Against the recordings: 3 cases · 1 regression · /);
    expect(await page.locator("#case-rows tr").first().getAttribute("data-case")).toBe("3");
    // The new experiment heads the list.
    expect(await text(page.locator("#experiment-list li h3").first())).toBe(title);
    expect(errors).toEqual(["console: Failed to load resource: the server responded with a status of 400 (Bad Request)"]);
  }, 180_000);

  it("shows a case that could not fit in the budget as skipped, with its reason", async () => {
    const base = fixture.dev.url;
    const { name: dataset } = await arithmetic(base);
    // Each case run's budget ($0.05) is more than the whole experiment's: no case can ever start.
    const made = await experiment(base, dataset, "unused", `skipped ${crypto.randomUUID().slice(0, 6)}`, { budget: { usd: 0.01 } });
    const { page, errors } = await consolePage(fixture.browser, base);
    await showExperiments(page, LOCAL_TOKEN);
    await page.locator(`[data-experiment="${made.id}"]`).getByRole("button", { name: /^Open experiment / }).click();
    await page.locator("#experiment-status[data-status=finished]").waitFor(WAIT);
    expect(await text(page.locator("#experiment-progress-text"))).toBe("3 of 3 ended (3 skipped)");
    const rows = page.locator("#case-rows tr");
    expect(await rows.locator(".case-state .status").allTextContents()).toEqual(["skipped", "skipped", "skipped"]);
    const view = ((await (await request(base, `/v1/experiments/${made.id}`, LOCAL_TOKEN)).json()) as { experiment: { cases: { reason?: string }[] } }).experiment;
    expect(view.cases[0]!.reason).toBeTruthy();
    expect(await text(rows.first().locator(".reason"))).toBe(view.cases[0]!.reason);
    expect(await rows.getByRole("button", { name: /^Case \d+'s run$/ }).count()).toBe(0);
    expect(await rows.first().getByRole("button", { name: "Case 1's recording" }).isVisible()).toBe(true);
    expect(errors).toEqual([]);
  }, 180_000);

  it("cancels a running experiment: its status and its cases say so, and Cancel goes", async () => {
    const base = fixture.dev.url;
    const { name: dataset } = await arithmetic(base);
    const made = await experiment(base, dataset, "never", `cancelled ${crypto.randomUUID().slice(0, 6)}`);
    const { page, errors } = await consolePage(fixture.browser, base, { phone: true });
    await showExperiments(page, LOCAL_TOKEN);
    await page.locator(`[data-experiment="${made.id}"]`).getByRole("button", { name: /^Open experiment / }).click();
    await caseRunIds(page, 3);
    // On a phone the case table scrolls inside its region: the page never scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.getByRole("button", { name: "Cancel experiment" }).click();
    await page.locator("#experiment-status[data-status=cancelled]").waitFor(WAIT);
    expect(await page.getByRole("button", { name: "Cancel experiment" }).isVisible()).toBe(false);
    await expect.poll(() => page.locator("#case-rows .case-state .status").allTextContents(), WAIT).toEqual(["cancelled", "cancelled", "cancelled"]);
    expect(await text(page.locator("#experiment-progress-text"))).toBe("3 of 3 ended (3 cancelled)");
    // The list's item follows the experiment open on the page.
    expect(await text(page.locator(`[data-experiment="${made.id}"] .status`))).toBe("cancelled");
    const view = ((await (await request(base, `/v1/experiments/${made.id}`, LOCAL_TOKEN)).json()) as { experiment: Experiment }).experiment;
    expect(view.status).toBe("cancelled");
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
  }, 180_000);
});
