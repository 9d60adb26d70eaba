// The crash points of an answer with an image (src/durable/blobs/take-images.ts): the object dies
// after the image was counted and before its upload, or after its upload and before the answer.
// Either way the answer is not stored and the run still waits; an image that is counted but not
// uploaded is named by nothing (a reference by hash to it is a 400), and the same answer sent
// again is taken once, the image counted once; an image uploaded for an answer never stored is
// deleted with the run.
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { prepareImages } from "../../src/api/images/images";
import type { AnswerBody } from "../../src/api/types";
import { r2BlobStore } from "../../src/durable/blobs/blob-store";
import { takeImages, type ImageCrashPoint } from "../../src/durable/blobs/take-images";
import type { EngineContext } from "../../src/durable/engine/engine-context";
import type { RunObject } from "../../src/durable/run/run-object";
import { readRun } from "../../src/durable/run/store/run-store";
import { answer, answerInstead } from "../../src/durable/run/lifecycle/transitions";
import { createRun, drive, stubFor, valueOf, viewOf, type RunStub } from "../helpers/runs";

const store = r2BlobStore(env.BLOBS);
const BYTES = 4096;

/** A PNG-signed image of 4 KB, told apart by `seed`. */
function png(seed: number): string {
  const bytes = new Uint8Array(BYTES);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, seed]);
  return btoa(String.fromCharCode(...bytes));
}

async function waitingRun(): Promise<{ id: string; stub: RunStub }> {
  const made = await createRun({ tools: ["ask"], minAnswerChars: 0, script: [{ toolCalls: [{ id: "q1", name: "ask", input: { question: "Which one?" } }] }, { text: "Done." }] });
  await drive(made.stub);
  expect((await viewOf(made.stub)).waiting?.callId).toBe("q1");
  return made;
}

/** The answer to q1 with the image, as the edge hands it to the object. */
async function answerWith(seed: number) {
  const prepared = await prepareImages([{ type: "text", text: "This one." }, { type: "image", mimeType: "image/png", data: png(seed) }], "content");
  const body: AnswerBody = { callId: "q1", content: prepared.content };
  return { body, upload: { images: prepared.images, references: prepared.references }, hash: prepared.images[0]!.hash };
}

/** The answer taken inside the object, dying at `at`; then every object is aborted: the run's new stub. */
async function crashingAnswer(stub: RunStub, id: string, seed: number, at: "counted" | "uploaded"): Promise<RunStub> {
  const { body, upload } = await answerWith(seed);
  const thrown = await runInDurableObject(stub as unknown as DurableObjectStub<RunObject>, async (instance, state) => {
    const { engine } = instance as unknown as { engine: EngineContext };
    const { sql } = state.storage;
    const crash: ImageCrashPoint = (point) => {
      if (point === at) throw new Error(`crash once ${point}`);
    };
    const steps = { instead: () => answerInstead(sql, readRun(sql), body), change: () => answer(engine, body) };
    return takeImages({ storage: state.storage, blobs: store, runId: id, limitBytes: 1024 * 1024 }, upload, steps, crash).catch((error: unknown) => error);
  });
  expect(thrown).toBeInstanceOf(Error);
  await abortAllDurableObjects();
  return stubFor(id);
}

async function counted(stub: RunStub): Promise<{ hash: string; bytes: number }[]> {
  return runInDurableObject(stub, (_instance, state) => state.storage.sql.exec<{ hash: string; bytes: number }>("SELECT hash, bytes FROM run_image").toArray());
}

const blobHashes = async (id: string) => (await store.list(id)).map((key) => key.slice(key.lastIndexOf("/") + 1));

describe("an answer with an image, crashed", () => {
  it("after the image was counted, before its upload: nothing names it, and the answer sent again is taken once", async () => {
    const made = await waitingRun();
    const { id } = made;
    const stub = await crashingAnswer(made.stub, id, 1, "counted");
    const { body, upload, hash } = await answerWith(1);
    expect(await blobHashes(id)).toEqual([]);
    expect(await counted(stub)).toEqual([{ hash, bytes: BYTES }]);
    expect((await viewOf(stub)).waiting?.callId).toBe("q1");
    // Counted is not stored: an answer naming it by hash alone is refused.
    const byHash = await stub.answer({ callId: "q1", content: [{ type: "image", mimeType: "image/png", hash }] }, { images: [], references: [{ hash, path: "content.0.hash" }] });
    expect(byHash).toMatchObject({ ok: false, status: 400, error: { issues: [{ path: "content.0.hash" }] } });
    expect(valueOf(await stub.answer(body, upload)).status).toBe("running");
    expect(await blobHashes(id)).toEqual([hash]);
    expect(await counted(stub)).toEqual([{ hash, bytes: BYTES }]);
    await drive(stub);
    expect((await viewOf(stub)).status).toBe("finished");
  });

  it("after the upload, before the answer: the run still waits, and the image is deleted with the run", async () => {
    const made = await waitingRun();
    const { id } = made;
    const stub = await crashingAnswer(made.stub, id, 2, "uploaded");
    const { hash } = await answerWith(2);
    expect(await blobHashes(id)).toEqual([hash]);
    expect(await counted(stub)).toEqual([{ hash, bytes: BYTES }]);
    expect((await viewOf(stub)).waiting?.callId).toBe("q1");
    // Another answer wins; the image stays counted, named by nothing, until the run is deleted.
    expect(valueOf(await stub.answer({ callId: "q1", content: "Neither." })).status).toBe("running");
    await drive(stub);
    expect(valueOf(await stub.deleteRun())).toBeNull();
    expect(await blobHashes(id)).toEqual([]);
  });
});
