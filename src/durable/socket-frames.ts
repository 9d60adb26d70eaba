// Frames a client sends on the events socket: answer, cancel, ping. A bad frame gets an error
// frame and the socket stays open.
import { NO_IMAGES, type ImageUpload } from "../api/images";
import type { RunRpc } from "../api/run-rpc";
import { parseFrame, type ClientFrame } from "../api/schemas";
import type { AnswerBody, BatchResult, Outcome, RunView } from "../api/types";
import { prepareContent } from "./blob-store";

function send(socket: WebSocket, frame: object): void {
  socket.send(JSON.stringify(frame));
}

export async function handleFrame(socket: WebSocket, message: string | ArrayBuffer, run: Pick<RunRpc, "answer" | "cancel">): Promise<void> {
  if (typeof message !== "string") {
    return send(socket, { type: "error", error: { code: "invalid-request", message: "Frames are JSON text, not binary." } });
  }
  const parsed = parseFrame(message);
  if (!parsed.ok) return send(socket, { type: "error", error: parsed.error });
  const { frame } = parsed;
  if (frame.type === "ping") return send(socket, { type: "pong" });
  const outcome = frame.type === "cancel" ? await run.cancel() : await answerFrame(frame, run);
  if (!outcome.ok) send(socket, { type: "error", error: outcome.error });
}

async function answerFrame(frame: Extract<ClientFrame, { type: "answer" }>, run: Pick<RunRpc, "answer">): Promise<Outcome<RunView>> {
  const body: AnswerBody = { callId: frame.callId };
  let images: ImageUpload = NO_IMAGES;
  if (frame.content !== undefined) {
    const prepared = await prepareContent(frame.content, "content");
    if (!prepared.ok) return { ok: false, status: 400, error: { code: "invalid-request", message: "Invalid image.", issues: prepared.issues } };
    body.content = prepared.content;
    images = prepared.upload;
  }
  if (frame.results !== undefined) {
    const results: BatchResult[] = [];
    const upload: ImageUpload = { images: [...images.images], references: [...images.references] };
    for (const [index, result] of frame.results.entries()) {
      const prepared = await prepareContent(result.content, `results.${index}.content`);
      if (!prepared.ok) return { ok: false, status: 400, error: { code: "invalid-request", message: "Invalid image.", issues: prepared.issues } };
      results.push({ ...result, content: prepared.content });
      upload.images.push(...prepared.upload.images);
      upload.references.push(...prepared.upload.references);
    }
    body.results = results;
    images = upload;
  }
  if (frame.approved !== undefined) body.approved = frame.approved;
  if (frame.isError !== undefined) body.isError = frame.isError;
  return run.answer(body, images);
}
