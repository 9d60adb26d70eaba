// The AI SDK chat stream beside the run's own SSE events, against `wrangler dev` on 127.0.0.1 with
// the scripted model, driven from this Node process (`npm run bench:chat`, or
// `node bench/ts.mjs bench/chat.ts [--trials 20] [--tokens 2000] [--version v7]`).
//
// Three figures, each side by side with the run's own SSE (`GET /v1/runs/:id/events`, the same
// runs, the two orders alternated trial by trial):
//
//   (1) first chunk after the POST: `POST /v1/ai-sdk/{v}/chat` with a user message to a finished
//       run (it continues) → its first chunk, and its first `start-step`; beside it, the run's SSE
//       already open, `POST /v1/runs/:id/messages` with the same message → the first event after
//       it, and the first `step-start`; and the same with the SSE opened after the POST answered
//       (one request, then one stream, as the chat does).
//   (2) a reconnect's first chunk: a run holding its model call; `GET …/chat/{runId}/stream` → the
//       first chunk of the replay; beside it `GET /v1/runs/:id/events?after=0` → the first event.
//   (3) chunks per second of a streamed answer of `tokens` tokens (4 characters each, one delta
//       each): both streams open on one held run, the hold released, the text chunks counted from
//       the first to the last.
//
// Figures are printed, never asserted. The machine is shared: read the ratios, not single numbers.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, platform, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { createRun, getRun, releaseHold } from "../test/e2e/support/api";
import { snapshotProject, startDevServer } from "../test/e2e/support/dev-server";
import { freePort } from "../test/e2e/support/http-server";
import { waitForEnd, waitForEvent } from "../test/e2e/support/run-events";
import { percentile, summary } from "../test/e2e/support/stats";
import { arg } from "./support/args";
import { timedSse, typeOf, type TimedFrame, type TimedSse } from "./support/timed-sse";

const TRIALS = arg("trials", 20);
const TOKENS = arg("tokens", 2000);
const VERSION = process.argv.includes("--version") ? process.argv[process.argv.indexOf("--version") + 1]! : "v7";
const TOKEN = "dev-token";
const WAIT_MS = 60_000;
const log = (line: string) => console.log(`[bench:chat] ${line}`);

const auth = { Authorization: `Bearer ${TOKEN}` };
const json = { ...auth, "Content-Type": "application/json" };
const sseHeaders = { ...auth, Accept: "text/event-stream" };

/** A run that has finished its first answer: the next user message continues it. */
async function finishedRun(base: string, script: unknown[]): Promise<{ id: string; token: string }> {
  const run = await createRun(base, TOKEN, { messages: [{ role: "user", content: "Hello" }], script: [{ text: "Hello." }, ...script] });
  await waitForEnd(base, run, { timeoutMs: WAIT_MS });
  return run;
}

const firstOf = (frames: TimedFrame[], type?: string) => frames.find((frame) => type === undefined || typeOf(frame) === type);

/** (1) chat: POST → first chunk, first start-step. */
async function chatPost(base: string, i: number): Promise<{ first: number; step: number }> {
  const run = await finishedRun(base, [{ text: "Again." }]);
  const startedAt = performance.now();
  const stream = await timedSse(`${base}/v1/ai-sdk/${VERSION}/chat`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ id: run.id, trigger: "submit-message", messages: [{ id: `u${i}`, role: "user", parts: [{ type: "text", text: "Again, please." }] }] }),
  });
  if (stream.status !== 200) throw new Error(`chat POST: ${stream.status}`);
  await stream.until((frames) => firstOf(frames, "start-step") !== undefined, WAIT_MS, "a start-step chunk");
  stream.close();
  return { first: firstOf(stream.frames)!.at - startedAt, step: firstOf(stream.frames, "start-step")!.at - startedAt };
}

/** (1) own: SSE open, POST /messages → first event, first step-start. */
async function ownPost(base: string): Promise<{ first: number; step: number }> {
  const run = await finishedRun(base, [{ text: "Again." }]);
  const { lastSeq } = await getRun(base, run.id, TOKEN);
  const stream = await timedSse(`${base}/v1/runs/${run.id}/events?after=${lastSeq}`, { headers: sseHeaders });
  const startedAt = performance.now();
  const response = await fetch(`${base}/v1/runs/${run.id}/messages`, { method: "POST", headers: json, body: JSON.stringify({ content: "Again, please." }) });
  if (!response.ok) throw new Error(`POST messages: ${response.status} ${await response.text()}`);
  await stream.until((frames) => firstOf(frames, "step-start") !== undefined, WAIT_MS, "a step-start event");
  stream.close();
  const after = stream.frames.filter((frame) => frame.at >= startedAt);
  return { first: after[0]!.at - startedAt, step: firstOf(stream.frames, "step-start")!.at - startedAt };
}

/** (1) own, opened after: POST /messages, then the SSE from the seq before it → first step-start. */
async function ownPostThenOpen(base: string): Promise<number> {
  const run = await finishedRun(base, [{ text: "Again." }]);
  const { lastSeq } = await getRun(base, run.id, TOKEN);
  const startedAt = performance.now();
  const response = await fetch(`${base}/v1/runs/${run.id}/messages`, { method: "POST", headers: json, body: JSON.stringify({ content: "Again, please." }) });
  if (!response.ok) throw new Error(`POST messages: ${response.status} ${await response.text()}`);
  const stream = await timedSse(`${base}/v1/runs/${run.id}/events?after=${lastSeq}`, { headers: sseHeaders });
  await stream.until((frames) => firstOf(frames, "step-start") !== undefined, WAIT_MS, "a step-start event");
  stream.close();
  return firstOf(stream.frames, "step-start")!.at - startedAt;
}

/** (2) a reconnect's first chunk (chat) or first event (own), on a run holding its model call. */
async function reconnect(base: string, runId: string, kind: "chat" | "own"): Promise<number> {
  const startedAt = performance.now();
  const url = kind === "chat" ? `${base}/v1/ai-sdk/${VERSION}/chat/${runId}/stream` : `${base}/v1/runs/${runId}/events?after=0`;
  const stream = await timedSse(url, { headers: kind === "chat" ? auth : sseHeaders });
  if (stream.status !== 200) throw new Error(`${url}: ${stream.status}`);
  await stream.until((frames) => frames.length > 0, WAIT_MS, "a first frame");
  stream.close();
  return stream.frames[0]!.at - startedAt;
}

type Rate = { chunks: number; perSecond: number; spanMs: number; endMs: number };

function rateOf(frames: TimedFrame[], textType: string, releasedAt: number, endAt: number): Rate {
  const texts = frames.filter((frame) => typeOf(frame) === textType);
  const spanMs = texts.length > 1 ? texts.at(-1)!.at - texts[0]!.at : 0;
  return { chunks: texts.length, perSecond: spanMs > 0 ? ((texts.length - 1) / spanMs) * 1000 : Number.NaN, spanMs, endMs: endAt - releasedAt };
}

/** (3) both streams open on one held run, released; text chunks per second on each. */
async function streamedAnswer(base: string, i: number): Promise<{ chat: Rate; own: Rate }> {
  const text = "word".repeat(TOKENS);
  const run = await createRun(base, TOKEN, { messages: [{ role: "user", content: "Write." }], script: [{ hold: "go", text, chunk: 4 }] });
  await waitForEvent(base, run.id, run.token, (event) => event.type === "step-start", { what: "the held step", timeoutMs: WAIT_MS });
  const streams: Record<"chat" | "own", TimedSse> = {} as Record<"chat" | "own", TimedSse>;
  const open = {
    chat: async () => (streams.chat = await timedSse(`${base}/v1/ai-sdk/${VERSION}/chat/${run.id}/stream`, { headers: auth })),
    own: async () => (streams.own = await timedSse(`${base}/v1/runs/${run.id}/events?after=0`, { headers: sseHeaders })),
  };
  for (const kind of i % 2 === 0 ? (["chat", "own"] as const) : (["own", "chat"] as const)) await open[kind]();
  // Both connected and caught up (the replay of the held step) before the text starts.
  await streams.chat.until((frames) => firstOf(frames, "start-step") !== undefined, WAIT_MS, "the chat's replay");
  await streams.own.until((frames) => firstOf(frames, "step-start") !== undefined, WAIT_MS, "the events' replay");
  const releasedAt = performance.now();
  await releaseHold(base, TOKEN, run.id, "go");
  await streams.chat.until((frames) => frames.some((frame) => ["finish", "error", "abort"].includes(typeOf(frame) ?? "")), WAIT_MS, "the chat's finish");
  await streams.own.until((frames) => firstOf(frames, "end") !== undefined, WAIT_MS, "the run's end event");
  const chatEnd = streams.chat.frames.find((frame) => typeOf(frame) === "finish")!.at;
  const ownEnd = firstOf(streams.own.frames, "end")!.at;
  streams.chat.close();
  streams.own.close();
  return { chat: rateOf(streams.chat.frames, "text-delta", releasedAt, chatEnd), own: rateOf(streams.own.frames, "text", releasedAt, ownEnd) };
}

const p50 = (values: number[]) => percentile(values, 50);
const ratio = (chat: number, own: number) => `${(chat / own).toFixed(2)}×`;

async function main(): Promise<void> {
  log(`${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}; load average ${loadavg().map((load) => load.toFixed(1)).join(" ")}`);
  log(`${TRIALS} trials each; chat endpoint ${VERSION}; answer of ${TOKENS} tokens`);
  const snapshot = snapshotProject();
  const dir = mkdtempSync(join(tmpdir(), "ratchet-bench-chat-"));
  const dev = await startDevServer({ port: await freePort(), persistTo: dir, cwd: snapshot.dir, vars: { API_TOKEN: TOKEN } });
  try {
    // Warm-up: the first requests to a fresh wrangler dev compile the Worker.
    await chatPost(dev.url, -1);
    await ownPost(dev.url);

    const post = { chat: { first: [] as number[], step: [] as number[] }, own: { first: [] as number[], step: [] as number[] } };
    const openedAfter: number[] = [];
    for (let i = 0; i < TRIALS; i++) {
      for (const kind of i % 2 === 0 ? (["chat", "own", "after"] as const) : (["after", "own", "chat"] as const)) {
        if (kind === "after") {
          openedAfter.push(await ownPostThenOpen(dev.url));
          continue;
        }
        const figures = kind === "chat" ? await chatPost(dev.url, i) : await ownPost(dev.url);
        post[kind].first.push(figures.first);
        post[kind].step.push(figures.step);
      }
    }
    log("(1) after the POST of a user message to a finished run:");
    log(`  first chunk:       chat p50 ${p50(post.chat.first).toFixed(1)} ms (${summary(post.chat.first, "ms", 1)})`);
    log(`  first event:       own  p50 ${p50(post.own.first).toFixed(1)} ms (${summary(post.own.first, "ms", 1)})  → chat/own ${ratio(p50(post.chat.first), p50(post.own.first))}`);
    log(`  first start-step:  chat p50 ${p50(post.chat.step).toFixed(1)} ms; first step-start: own p50 ${p50(post.own.step).toFixed(1)} ms  → chat/own ${ratio(p50(post.chat.step), p50(post.own.step))}`);
    log(`  first step-start, own SSE opened after the POST answered: p50 ${p50(openedAfter).toFixed(1)} ms (${summary(openedAfter, "ms", 1)})  → chat start-step / this ${ratio(p50(post.chat.step), p50(openedAfter))}`);

    const held = await createRun(dev.url, TOKEN, { messages: [{ role: "user", content: "Hold." }], script: [{ text: "Before.", toolCalls: [{ name: "calculator", input: { expression: "1 + 1" } }] }, { hold: "never", text: "After." }], tools: ["calculator"], minAnswerChars: 0 });
    await waitForEvent(dev.url, held.id, held.token, (event) => event.type === "step-start" && event.step === 2, { what: "the held second step", timeoutMs: WAIT_MS });
    const again = { chat: [] as number[], own: [] as number[] };
    for (let i = 0; i < TRIALS; i++) {
      for (const kind of i % 2 === 0 ? (["chat", "own"] as const) : (["own", "chat"] as const)) again[kind].push(await reconnect(dev.url, held.id, kind));
    }
    log("(2) a reconnect to a run holding its second model call:");
    log(`  first chunk: chat p50 ${p50(again.chat).toFixed(1)} ms (${summary(again.chat, "ms", 1)}); first event: own p50 ${p50(again.own).toFixed(1)} ms (${summary(again.own, "ms", 1)})  → chat/own ${ratio(p50(again.chat), p50(again.own))}`);
    await fetch(`${dev.url}/v1/runs/${held.id}/cancel`, { method: "POST", headers: json });

    const rates = { chat: [] as Rate[], own: [] as Rate[] };
    const rounds = Math.max(3, Math.ceil(TRIALS / 4));
    for (let i = 0; i < rounds; i++) {
      const { chat, own } = await streamedAnswer(dev.url, i);
      rates.chat.push(chat);
      rates.own.push(own);
    }
    const perSecond = (list: Rate[]) => list.map((rate) => rate.perSecond);
    const endMs = (list: Rate[]) => list.map((rate) => rate.endMs);
    log(`(3) a streamed answer of ${TOKENS} tokens, both streams on the same run, ${rounds} runs:`);
    log(`  text chunks: chat ${rates.chat.map((rate) => rate.chunks).join(", ")}; own ${rates.own.map((rate) => rate.chunks).join(", ")}`);
    log(`  chunks/s: chat p50 ${p50(perSecond(rates.chat)).toFixed(0)} (${summary(perSecond(rates.chat), "/s")}); own p50 ${p50(perSecond(rates.own)).toFixed(0)} (${summary(perSecond(rates.own), "/s")})  → chat/own ${ratio(p50(perSecond(rates.chat)), p50(perSecond(rates.own)))}`);
    log(`  release → finish: chat p50 ${p50(endMs(rates.chat)).toFixed(0)} ms; release → end event: own p50 ${p50(endMs(rates.own)).toFixed(0)} ms  → chat/own ${ratio(p50(endMs(rates.chat)), p50(endMs(rates.own)))}`);
  } finally {
    await dev.kill();
    snapshot.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
