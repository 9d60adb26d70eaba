// Frames a client sends on the events socket: answer, cancel, ping. A bad frame gets an error
// frame and the socket stays open.
import { prepareImages, type PreparedImages } from "../../../api/images/images";
import type { RunRpc } from "../../../api/rpc/run-rpc";
import { parseFrame, type ClientFrame } from "../../../api/schemas/streams/frame-schemas";
import type { AnswerBody, Outcome, RunView } from "../../../api/types";

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
  // Every content's images are collected in one place, so one refusal names every bad image.
  const prepared: PreparedImages = { content: "", images: [], references: [], issues: [] };
  if (frame.content !== undefined) body.content = (await prepareImages(frame.content, "content", prepared)).content;
  if (frame.results !== undefined) {
    body.results = [];
    for (const [index, result] of frame.results.entries()) {
      body.results.push({ ...result, content: (await prepareImages(result.content, `results.${index}.content`, prepared)).content });
    }
  }
  if (prepared.issues.length > 0) return { ok: false, status: 400, error: { code: "invalid-request", message: "Invalid image.", issues: prepared.issues } };
  if (frame.approved !== undefined) body.approved = frame.approved;
  if (frame.isError !== undefined) body.isError = frame.isError;
  return run.answer(body, { images: prepared.images, references: prepared.references });
}
