// Frames a client sends on the events socket: answer, cancel, ping. A bad frame gets an error
// frame and the socket stays open.
import { storeImages } from "../api/images";
import type { RunRpc } from "../api/run-rpc";
import { parseFrame, type ClientFrame } from "../api/schemas";
import type { AnswerBody, Outcome, RunView } from "../api/types";

function send(socket: WebSocket, frame: object): void {
  socket.send(JSON.stringify(frame));
}

export async function handleFrame(
  socket: WebSocket,
  message: string | ArrayBuffer,
  run: Pick<RunRpc, "answer" | "cancel">,
  blobs: R2Bucket,
): Promise<void> {
  if (typeof message !== "string") {
    return send(socket, { type: "error", error: { code: "invalid-request", message: "Frames are JSON text, not binary." } });
  }
  const parsed = parseFrame(message);
  if (!parsed.ok) return send(socket, { type: "error", error: parsed.error });
  const { frame } = parsed;
  if (frame.type === "ping") return send(socket, { type: "pong" });
  const outcome = frame.type === "cancel" ? await run.cancel() : await answerFrame(frame, run, blobs);
  if (!outcome.ok) send(socket, { type: "error", error: outcome.error });
}

async function answerFrame(frame: Extract<ClientFrame, { type: "answer" }>, run: Pick<RunRpc, "answer">, blobs: R2Bucket): Promise<Outcome<RunView>> {
  const body: AnswerBody = { callId: frame.callId };
  if (frame.content !== undefined) {
    const stored = await storeImages(frame.content, blobs, "content");
    if (!stored.ok) return { ok: false, status: 400, error: { code: "invalid-request", message: "Invalid image.", issues: stored.issues } };
    body.content = stored.content;
  }
  if (frame.approved !== undefined) body.approved = frame.approved;
  if (frame.isError !== undefined) body.isError = frame.isError;
  return run.answer(body);
}
