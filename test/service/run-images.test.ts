// A run's images at every door that takes them into it (src/durable/blobs/take-images.ts): the run
// decides before anything is stored, so a request it refuses leaves no blob behind; and
// RUN_IMAGE_BYTES_LIMIT (2 MiB in the tests: test/test-env.ts) caps the bytes of images it holds,
// each image once, whichever door brought it: past it a 413 `too-large` naming the setting, and
// nothing of the request stored. Images of 700 KB, one per request (the 1 MiB body).
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunView } from "../../src/api/types";
import { r2BlobStore } from "../../src/durable/blobs/blob-store";
import { sha256Hex } from "../../src/lib/text/encoding";
import { testChat } from "../helpers/ai-chat";
import { expectError } from "../helpers/http";
import { stubFor } from "../helpers/runs";
import { api, driveRun, getRun, startRun } from "../helpers/service-client";
import { TEST_API_TOKEN, TEST_BINDINGS } from "../test-env";

const IMAGE_BYTES = 700 * 1024;
const LIMIT = Number(TEST_BINDINGS.RUN_IMAGE_BYTES_LIMIT);

/** The bytes of a PNG-signed image of 700 KB, told apart by `seed` (each test its own seeds). */
function pngBytes(seed: number): Uint8Array {
  const bytes = new Uint8Array(IMAGE_BYTES);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, seed]);
  return bytes;
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let at = 0; at < bytes.length; at += 8192) binary += String.fromCharCode(...bytes.subarray(at, at + 8192));
  return btoa(binary);
}

const image = (seed: number) => ({ type: "image", mimeType: "image/png", data: base64(pngBytes(seed)) });
const hashOf = (seed: number) => sha256Hex(pngBytes(seed));
const ask = (id: string) => ({ text: "One question.", toolCalls: [{ id, name: "ask", input: { question: `Question ${id}?` } }] });

function post(path: string, token: string, body: unknown): Promise<Response> {
  return api(path, token, { method: "POST", body: JSON.stringify(body) });
}

async function accepted(response: Response): Promise<RunView> {
  const text = await response.text();
  expect(response.status, text).toBe(202);
  return JSON.parse(text) as RunView;
}

/** The hashes of the images stored for the run, in R2. */
async function blobs(runId: string): Promise<string[]> {
  return (await r2BlobStore(env.BLOBS).list(runId)).map((key) => key.slice(key.lastIndexOf("/") + 1)).sort();
}

/** Every blob key of every run. */
async function allKeys(): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.BLOBS.list({ prefix: "runs/", ...(cursor === undefined ? {} : { cursor }) });
    keys.push(...page.objects.map((object) => object.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return keys;
}

/** The run's count of the images it holds: [hash, bytes] rows. */
async function counted(runId: string): Promise<[string, number][]> {
  return runInDurableObject(stubFor(runId), (_instance, state) =>
    state.storage.sql
      .exec<{ hash: string; bytes: number }>("SELECT hash, bytes FROM run_image ORDER BY hash")
      .toArray()
      .map((row): [string, number] => [row.hash, Number(row.bytes)]),
  );
}

async function tooLarge(response: Response): Promise<void> {
  const refused = await expectError(response, 413, "too-large");
  expect(refused.error.message).toContain("RUN_IMAGE_BYTES_LIMIT");
}

/** A run that asks `calls` one after the other, then finishes; waiting on the first. */
async function asking(calls: string[], content: unknown = "Look."): Promise<{ run: RunView; token: string }> {
  const started = await startRun({ messages: [{ role: "user", content }], tools: ["ask"], minAnswerChars: 0, script: [...calls.map(ask), { text: "Done." }] });
  await driveRun(started.run.id);
  expect((await getRun(started.run.id, started.token)).waiting?.callId).toBe(calls[0]);
  return started;
}

describe("an answer the run does not take stores no image", () => {
  it("an answer with images for a call the run does not wait on is a 409, and no blob is stored", async () => {
    const { run, token } = await asking(["q1"]);
    const answer = (body: unknown) => post(`/v1/runs/${run.id}/answer`, token, body);
    await expectError(await answer({ callId: "q9", content: [image(11)] }), 409, "conflict");
    // A toolset batch's form, for a call that is not waiting: the same.
    await expectError(await answer({ callId: "q9", results: [{ callId: "q9", content: [image(12)] }] }), 409, "conflict");
    expect(await blobs(run.id)).toEqual([]);
    expect((await getRun(run.id, token)).status).toBe("waiting");
    // Answered, then answered again with an image: first answer wins, and the second stores nothing.
    await accepted(await answer({ callId: "q1", content: "Yes." }));
    await expectError(await answer({ callId: "q1", content: [image(13)] }), 409, "conflict");
    expect(await blobs(run.id)).toEqual([]);
  });
});

describe("RUN_IMAGE_BYTES_LIMIT", () => {
  it("an answer past it is a 413 naming the setting: nothing is stored and the run still waits; an image the run holds counts nothing", async () => {
    const { run, token } = await asking(["q1", "q2"], [{ type: "text", text: "Look." }, image(21)]);
    await accepted(await post(`/v1/runs/${run.id}/answer`, token, { callId: "q1", content: [image(22)] }));
    await driveRun(run.id);
    const held = [await hashOf(21), await hashOf(22)].sort();
    expect(await blobs(run.id)).toEqual(held);
    // A third image would hold 2.1 MB, past the 2 MiB.
    expect(3 * IMAGE_BYTES).toBeGreaterThan(LIMIT);
    await tooLarge(await post(`/v1/runs/${run.id}/answer`, token, { callId: "q2", content: [{ type: "text", text: "This one." }, image(23)] }));
    expect(await blobs(run.id)).toEqual(held);
    expect(await counted(run.id)).toEqual(held.map((hash) => [hash, IMAGE_BYTES]));
    expect((await getRun(run.id, token)).waiting?.callId).toBe("q2");
    // The first image again (its bytes, and by hash): the run holds it, so it fits.
    await accepted(await post(`/v1/runs/${run.id}/answer`, token, { callId: "q2", content: [image(21), { type: "image", mimeType: "image/png", hash: held[0] }] }));
    expect(await blobs(run.id)).toEqual(held);
    expect(await counted(run.id)).toHaveLength(2);
    await driveRun(run.id);
    expect((await getRun(run.id, token)).status).toBe("finished");
  });

  it("counts the images of every door: a create, a message to a running run, a continue, a fork, the AI SDK chat's POST", async () => {
    const { run, token } = await startRun({ messages: [{ role: "user", content: [image(31)] }], minAnswerChars: 0, script: [{ text: "Seen." }, { text: "Seen again." }, { text: "Never." }] });
    const send = (content: unknown) => post(`/v1/runs/${run.id}/messages`, token, { content });
    // Running: a message is queued with its image; the next one is past the cap.
    expect((await accepted(await send([image(32)]))).status).toBe("running");
    await tooLarge(await send([image(33)]));
    const held = [await hashOf(31), await hashOf(32)].sort();
    expect(await blobs(run.id)).toEqual(held);
    await driveRun(run.id);
    // Finished: a continue is past it too; one with an image the run holds goes on.
    await tooLarge(await send([image(33)]));
    expect((await getRun(run.id, token)).status).toBe("finished");
    expect((await accepted(await send([{ type: "text", text: "Again." }, image(32)]))).status).toBe("running");
    await driveRun(run.id);
    // A fork holds its source's images: one more is past the cap, and no fork is made (the
    // deployment's fork: a run token may not fork onto the scripted provider).
    const fork = (body: unknown) => post(`/v1/runs/${run.id}/fork`, TEST_API_TOKEN, body);
    await tooLarge(await fork({ atStep: 1, messages: [{ role: "user", content: [image(33)] }] }));
    const made = await fork({ atStep: 1, messages: [{ role: "user", content: "Only text." }] });
    expect(made.status, await made.clone().text()).toBe(201);
    const forkId = ((await made.json()) as { run: RunView }).run.id;
    expect(await blobs(forkId)).toEqual(held);
    expect(await counted(forkId)).toEqual(held.map((hash) => [hash, IMAGE_BYTES]));
    // The AI SDK chat's POST, with the version's own client: the image's 413 reaches it.
    const { chat, nextResponse, statuses } = testChat({ version: "v7", runId: run.id, token });
    const sent = chat.sendMessage({ text: "And this?", files: [{ type: "file", mediaType: "image/png", url: `data:image/png;base64,${image(33).data}` }] } as never);
    await nextResponse();
    await sent;
    expect(statuses).toEqual([413]);
    expect(chat.error).toBeDefined();
    // Nowhere is the refused image stored.
    const refused = await hashOf(33);
    expect((await allKeys()).filter((key) => key.endsWith(refused))).toEqual([]);
    expect(await blobs(run.id)).toEqual(held);
  });

  it("a run made before the count counts the images it holds the first time it takes one", async () => {
    const { run, token } = await asking(["q1", "q2"], [image(41)]);
    // As a run of an older release: no count at all.
    await runInDurableObject(stubFor(run.id), (_instance, state) => state.storage.sql.exec("DROP TABLE run_image"));
    await accepted(await post(`/v1/runs/${run.id}/answer`, token, { callId: "q1", content: [image(42)] }));
    expect(await counted(run.id)).toEqual([await hashOf(41), await hashOf(42)].sort().map((hash) => [hash, IMAGE_BYTES]));
    await driveRun(run.id);
    await tooLarge(await post(`/v1/runs/${run.id}/answer`, token, { callId: "q2", content: [image(43)] }));
  });
});
