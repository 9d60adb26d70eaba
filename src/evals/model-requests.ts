// A recording's model requests, one model step after another over its segments (each segment's
// loop builds its own, so each is decoded apart from its deltas: src/replay/request-delta.ts).
// Each request is rebuilt only when asked for, so walking two recordings side by side to their
// first difference costs what the steps add, not a copy of the history per step. Pure.
import type { GenerateRequest } from "../loop/types";
import type { Recording } from "../replay/recording";
import { RequestDeltaDecoder } from "../replay/request-delta";

export type ModelRequest = { step: number; hash: string; request: () => GenerateRequest };

const MODEL = /^model\/(\d+)$/;

export function* modelRequests(recording: Pick<Recording, "segments">): Generator<ModelRequest> {
  for (const segment of recording.segments) {
    const decoder = new RequestDeltaDecoder();
    for (const step of segment.steps) {
      const model = MODEL.exec(step.key);
      if (model === null || step.request === undefined) continue;
      decoder.apply(step.request);
      yield { step: segment.stepsBefore + Number(model[1]), hash: step.request.hash, request: () => decoder.current() };
    }
  }
}
