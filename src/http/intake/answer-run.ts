// An answer to what a run waits on, from whichever door it came (POST /v1/runs/{id}/answer, an
// MCP client's elicitation result): its images checked and decoded, then the run object's answer.
import type { AnswerInput } from "../../api/schemas/person/answer-schemas";
import type { AnswerBody, Outcome, RunView } from "../../api/types";
import type { RunStub } from "../run-stub";
import { ImageIntake } from "./images";

export async function answerRun(run: RunStub, input: AnswerInput): Promise<Outcome<RunView>> {
  const { content, results, ...rest } = input;
  const body: AnswerBody = rest;
  const images = new ImageIntake();
  if (content !== undefined) body.content = await images.content(content, "content");
  if (results !== undefined) body.results = await images.batchResults(results, "results");
  return run.answer(body, images.upload());
}
