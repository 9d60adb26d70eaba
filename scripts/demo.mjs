#!/usr/bin/env node
// `npm run demo`: a first run from a terminal, against the service that `npm start` runs.
//
// It starts a run that calls a tool, asks you a question and finishes; shows each step live (the
// step counter, the model's text, tool calls and results, the cost so far); asks for your answer
// here; and prints the final answer and the cost. Without ANTHROPIC_API_KEY or OPENAI_API_KEY the
// model is the offline scripted one (the turns are below); with one of them, the service is asked
// for provider "anthropic" (or "openai") and the real model decides.
//
//   RATCHET_URL    the service (default http://127.0.0.1:8787)
//   RATCHET_TOKEN  the deployment token (default dev-token)
//   --long         a longer run whose history is compacted along the way (compaction at 1,000 tokens)
//
// `npm run demo -- --inbox` shows the phone that was not watching: the backend mints a user token,
// the "phone" starts a run with it (offline, where the local server lets a user token use the
// scripted model; elsewhere the backend starts it for the user) and walks away (no socket to the run, no run token kept), and
// the question reaches it through the inbox of its user — one stream for all its runs — where it
// is answered.
//
// It uses the typed client as an app does, the package @ratchet/client (`npm run demo` builds it
// first: packages/client, linked into node_modules by npm's workspaces). Node 20 has no WebSocket,
// so its events arrive as Server-Sent Events, and it reconnects by itself.
import { createClient, RatchetError } from "@ratchet/client";
import { createInterface } from "node:readline/promises";

const baseUrl = (process.env.RATCHET_URL || "http://127.0.0.1:8787").replace(/\/+$/, "");
const deployToken = process.env.RATCHET_TOKEN || "dev-token";
/** The real provider whose key this terminal has (the service needs the same key), else none: scripted. */
const real = process.env.ANTHROPIC_API_KEY ? "anthropic" : process.env.OPENAI_API_KEY ? "openai" : undefined;
const modelLabel = real === undefined ? "scripted model (offline)" : `provider ${real}`;

const LONG = process.argv.includes("--long");
const MAX_STEPS = LONG ? 16 : 8;
const BUDGET_USD = 0.25;
const SYSTEM = "You are a careful assistant. Use the calculator for arithmetic and the ask tool to ask the person.";
const MESSAGE = LONG
  ? "Add the numbers 1 to 10 one at a time with the calculator, keeping a running total, then tell me the total."
  : real !== undefined
  ? "Use the calculator to work out 17 × 23. Then ask me, with the ask tool, what to call the result. Finish with one short sentence that uses my answer."
  : "What is 17 × 23? Ask me what to call the result, then finish.";
/** Ten steps that say a lot, so the history passes the compaction threshold twice. */
const LONG_SCRIPT = [
  ...Array.from({ length: 10 }, (_v, i) => ({
    text: `Step ${i + 1}: adding ${i + 1} to the running total. ${"I keep every intermediate result in mind. ".repeat(25)}`,
    toolCalls: [{ name: "calculator", input: { expression: `${(i * (i + 1)) / 2} + ${i + 1}` } }],
    costUsd: 0.002,
    delayMs: 100,
  })),
  { text: "The total of 1 to 10 is 55: I added each number to the running total with the calculator, one at a time, as you asked.", costUsd: 0.002, delayMs: 100 },
];
const SCRIPT = [
  { text: "Let me work that out with the calculator.", toolCalls: [{ name: "calculator", input: { expression: "17 * 23" } }], costUsd: 0.012, delayMs: 300 },
  { text: "17 × 23 = 391. One question before I finish.", toolCalls: [{ name: "ask", input: { question: "What should I call the result?" } }], costUsd: 0.009, delayMs: 300 },
  { text: "Thank you, noted. The result is 391.", costUsd: 0.006, delayMs: 300 },
];

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (text) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
const dim = paint(2);
const bold = paint(1);
const green = paint(32);
const red = paint(31);
const yellow = paint(33);
const say = (line = "") => process.stdout.write(`${line}\n`);
const money = (usd) => `$${usd.toFixed(4)}`;
const oneLine = (value) => {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
};

/** Questions in the terminal; the interface exists only while one is needed, so stdin never holds the process open. */
async function prompt(question) {
  const lines = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY === true });
  const closed = new Promise((resolve) => lines.once("close", () => resolve(undefined)));
  try {
    const answer = await Promise.race([lines.question(question), closed]);
    if (answer === undefined) throw new Error("No answer: the input ended.");
    // A terminal echoes what was typed; piped input is not, so the transcript shows it here.
    if (process.stdin.isTTY !== true) say(answer);
    return answer.trim();
  } finally {
    lines.close();
  }
}

async function answerWaiting(client, runId, event) {
  if (event.kind === "approval") {
    const reply = await prompt(`${yellow("?")} May the run call ${bold(event.name)} ${dim(oneLine(event.input))}? [y/N] `);
    await client.approve(runId, event.callId, /^y(es)?$/i.test(reply));
    return;
  }
  const question = event.kind === "ask" && typeof event.input?.question === "string" ? event.input.question : `Result of ${event.name} ${oneLine(event.input)}`;
  const choices = Array.isArray(event.input?.choices) ? dim(` (${event.input.choices.join(" / ")})`) : "";
  let answer = "";
  while (answer === "") answer = await prompt(`${yellow("?")} ${bold(question)}${choices}\n${yellow(">")} `);
  await client.answer(runId, { callId: event.callId, content: answer });
}

/** A run that takes its time before it asks: the phone is long gone by then. */
const INBOX_SCRIPT = [
  { text: "Let me work that out with the calculator.", toolCalls: [{ name: "calculator", input: { expression: "17 * 23" } }], costUsd: 0.012, delayMs: 1500 },
  { text: "17 × 23 = 391. One question before I finish.", toolCalls: [{ name: "ask", input: { question: "What should I call the result?" } }], costUsd: 0.009, delayMs: 300 },
  { text: "Thank you, noted. The result is 391.", costUsd: 0.006, delayMs: 300 },
];

function cannotReach(error) {
  if (error instanceof RatchetError && error.code === "network") {
    say(red(`Cannot reach Ratchet at ${baseUrl}. Start it in another terminal with \`npm start\`, or set RATCHET_URL.`));
    return true;
  }
  return false;
}

/** The inbox demo's run, started by the phone (its user token) where the deployment lets it, else by the backend for the user. */
async function startForPhone(phone, backend, body, subject, real) {
  if (real !== undefined) return { run: (await phone.createRun({ ...body, provider: real })).run, by: "phone" };
  const scripted = { ...body, provider: "scripted", script: INBOX_SCRIPT };
  try {
    return { run: (await phone.createRun(scripted)).run, by: "phone" };
  } catch (error) {
    if (!(error instanceof RatchetError) || error.status !== 403) throw error;
    say(`${dim("phone:")} ${error.message}`);
    return { run: (await backend.createRun({ ...scripted, subject })).run, by: "backend" };
  }
}

async function inboxDemo() {
  const backend = createClient({ baseUrl, token: deployToken });
  say(`${bold("Ratchet demo: the inbox")} ${dim(`→ ${baseUrl}, ${modelLabel}`)}`);
  const subject = `demo-user-${Math.random().toString(36).slice(2, 8)}`;
  let minted;
  try {
    minted = await backend.mintUserToken(subject, { ttlSeconds: 3600 });
  } catch (error) {
    if (cannotReach(error)) return 1;
    throw error;
  }
  say(`${dim("backend:")} minted a user token for ${bold(subject)} ${dim(`(good until ${minted.expiresAt}; the phone holds it)`)}`);
  const phone = backend.withToken(minted.token);
  // Where the user's inbox stands before the run exists: the phone follows every change from here.
  const { lastSeq } = await phone.listRuns({ limit: 1 });
  const body = {
    system: SYSTEM,
    messages: [{ role: "user", content: MESSAGE }],
    tools: ["calculator", "ask", "current_time"],
    maxSteps: MAX_STEPS,
    budget: { usd: BUDGET_USD },
    metadata: { source: "npm run demo -- --inbox" },
  };
  // The phone starts the run with its user token. The offline scripted model plays what the request
  // wrote, so a user token may use it only in local development (`npm start`: LOCAL_DEV at a
  // loopback address); against any other deployment the backend starts that run for its user.
  const { run, by } = await startForPhone(phone, backend, body, subject, real);
  // The run token of the answer is dropped on purpose: the phone keeps only its user token.
  say(`${dim(`${by}:`)} started ${run.id} for ${subject}, and the phone went back in the pocket ${dim("(no socket to the run, no run token kept)")}`);
  say(`${dim("inbox:")} one stream for every run of ${subject}; waiting for a question…`);
  const started = Date.now();
  const controller = new AbortController();
  process.once("SIGINT", () => {
    say(yellow("\nCancelling the run…"));
    phone.cancel(run.id).finally(() => process.exit(130));
  });
  for await (const event of phone.inbox({ after: lastSeq, signal: controller.signal })) {
    if (event.run.id !== run.id) continue;
    const at = dim(`+${((Date.now() - started) / 1000).toFixed(1)} s`);
    say(`${dim("inbox:")} ${event.type} ${at}`);
    if (event.type === "run-waiting" && event.run.waiting !== undefined) {
      const view = await phone.getRun(run.id);
      if (view.waiting !== undefined) await answerWaiting(phone, run.id, view.waiting);
    } else if (event.type === "run-ended" || event.type === "run-deleted") {
      controller.abort();
      const done = await phone.getRun(run.id);
      const ok = done.status === "finished";
      say();
      say(`${ok ? green("✔") : red("✗")} ${bold(done.status)} after ${done.steps} step${done.steps === 1 ? "" : "s"} ${dim(`(stopped by ${done.stoppedBy})`)}`);
      if (done.finalText !== undefined && done.finalText !== "") say(`${bold("Final answer:")} ${done.finalText}`);
      say(`${bold("Cost:")} ${money(done.spentUsd)} of a ${money(BUDGET_USD)} budget`);
      say(dim(`The user's runs: curl -s ${baseUrl}/v1/runs -H "Authorization: Bearer ${minted.token}"`));
      return ok ? 0 : 1;
    }
  }
  return 1;
}

async function main() {
  if (process.argv.includes("--inbox")) return inboxDemo();
  const ratchet = createClient({ baseUrl, token: deployToken });
  say(`${bold("Ratchet demo")} ${dim(`→ ${baseUrl}, ${modelLabel}`)}`);
  say(`${dim("you:")} ${MESSAGE}`);

  let created;
  try {
    created = await ratchet.createRun({
      system: SYSTEM,
      messages: [{ role: "user", content: MESSAGE }],
      tools: ["calculator", "ask", "current_time"],
      maxSteps: MAX_STEPS,
      budget: { usd: BUDGET_USD },
      metadata: { source: "npm run demo" },
      ...(LONG ? { compaction: { mode: "summary", atTokens: 1_000 } } : {}),
      ...(real !== undefined ? { provider: real } : { provider: "scripted", script: LONG ? LONG_SCRIPT : SCRIPT }),
    });
  } catch (error) {
    if (cannotReach(error)) return 1;
    throw error;
  }
  const { run, token } = created;
  say(`${dim("run")} ${run.id} ${dim(`(run token ${token}: it reads and acts on this run only)`)}`);

  // From here on the run token is enough: it is what a phone app would hold.
  const client = ratchet.withToken(token);
  process.once("SIGINT", () => {
    say(yellow("\nCancelling the run…"));
    client.cancel(run.id).finally(() => process.exit(130));
  });

  let spent = 0;
  let streaming = undefined;
  const endLine = () => {
    if (streaming !== undefined) process.stdout.write("\n");
    streaming = undefined;
  };
  for await (const event of client.events(run.id)) {
    switch (event.type) {
      case "step-start":
        endLine();
        say(`${bold(`step ${event.step}/${MAX_STEPS}`)}${event.last ? dim(" (last)") : ""}`);
        break;
      case "text":
        if (streaming !== event.step) process.stdout.write("  ");
        streaming = event.step;
        process.stdout.write(event.delta);
        break;
      case "text-reset":
        // The model call broke after streaming some text and is tried again: what was shown is void.
        endLine();
        say(dim("  (connection trouble: the model call is tried again)"));
        break;
      case "compaction":
        endLine();
        say(dim(`  context compacted (${event.mode}): ${event.tokensBefore.toLocaleString("en-US")} → about ${event.tokensAfter.toLocaleString("en-US")} tokens`));
        break;
      case "model":
        if (streaming === undefined && event.text !== "") say(`  ${event.text}`);
        if (event.stopReason === "max_tokens" || event.stopReason === "model_context_window_exceeded") say(yellow("  (the answer was cut off)"));
        endLine();
        spent = event.spentUsd;
        say(dim(`  cost so far ${money(spent)} of ${money(BUDGET_USD)}`));
        break;
      case "tool-call":
        endLine();
        say(`  → ${bold(event.name)} ${dim(oneLine(event.input))}`);
        break;
      case "tool-result":
        spent = (Math.round(spent * 1e6) + Math.round(event.costUsd * 1e6)) / 1e6; // whole micro-dollars, as the service sums
        say(`  ${event.ok ? green("←") : red("✗")} ${oneLine(event.ok ? event.summary : (event.error ?? event.summary))}`);
        break;
      case "waiting":
        endLine();
        await answerWaiting(client, run.id, event);
        break;
      case "answered":
        say(dim("  answered"));
        break;
      case "end": {
        endLine();
        const ok = event.status === "finished";
        say();
        say(`${ok ? green("✔") : red("✗")} ${bold(event.status)} after ${event.steps} step${event.steps === 1 ? "" : "s"} ${dim(`(stopped by ${event.stoppedBy})`)}`);
        if (event.error !== undefined) say(red(`error: ${event.error.message} (${event.error.code})`));
        if (event.finalText !== undefined && event.finalText !== "") say(`${bold("Final answer:")} ${event.finalText}`);
        if (event.final !== undefined) say(`${bold("Final:")} ${JSON.stringify(event.final)}`);
        say(`${bold("Cost:")} ${money(event.spentUsd)} of a ${money(BUDGET_USD)} budget`);
        say(dim(`See it again: curl -s ${baseUrl}/v1/runs/${run.id}/messages -H "Authorization: Bearer ${token}"`));
        return ok ? 0 : 1;
      }
    }
  }
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    const detail = error?.name === "RatchetError" ? `${error.message} (${error.code})` : (error?.stack ?? String(error));
    process.stderr.write(`${red("demo failed:")} ${detail}\n`);
    for (const issue of error?.issues ?? []) process.stderr.write(`  ${issue.path}: ${issue.message}\n`);
    process.exit(1);
  },
);
