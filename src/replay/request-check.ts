// How a replay checks the request today's loop sends against the recorded one, per segment and
// format. Format 2: the recorded request is rebuilt from its delta and the sent one hashed, both in
// time proportional to what the step adds; only where the hashes differ are the two compared field
// by field, for the path of the first difference (none when they differ in key order alone).
// Format 1: the whole request is recorded; the same JSON text is the same request, otherwise the
// fields are compared.
import type { GenerateRequest } from "../loop/types";
import { firstDifference } from "./first-difference";
import { RequestDeltaDecoder, type RequestDelta } from "./request-delta";
import { RequestHasher } from "./request-hash";

/** The path of the first field where `sent` differs from the recorded request, or undefined when they are the same. Called once per model step, in order. */
export type RequestCheck = (sent: GenerateRequest, recorded: RequestDelta | GenerateRequest) => string | undefined;

/** A new check for one segment's model steps. */
export function requestCheck(format: "delta" | "whole"): RequestCheck {
  if (format === "whole") {
    return (sent, recorded) => {
      const text = JSON.stringify(sent);
      return text === JSON.stringify(recorded) ? undefined : firstDifference(JSON.parse(text) as unknown, recorded);
    };
  }
  const hasher = new RequestHasher();
  const decoder = new RequestDeltaDecoder();
  return (sent, recorded) => {
    const delta = recorded as RequestDelta;
    decoder.apply(delta);
    if (hasher.hash(sent) === delta.hash) return undefined;
    return firstDifference(JSON.parse(JSON.stringify(sent)) as unknown, decoder.current());
  };
}
