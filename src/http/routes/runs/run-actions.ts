// A person's actions on a run as the routes do them: POST /v1/runs/{id}/messages, /answer and
// /retry, and the AI SDK chat's POST, which does the same through these (never a copy of a check).
// Each takes a body its route's schema checked and answers the run object's outcome, unwrapped.
import type { Context } from "hono";
import type { ContinueBody, MessageAnswer, RunView } from "../../../api/types";
import type { AnswerInput } from "../../../api/schemas/person/answer-schemas";
import type { continueBodySchema } from "../../../api/schemas/person/answer-schemas";
import type { z } from "@hono/zod-openapi";
import { admitContinue } from "../../../intake/admit-run";
import type { AppEnv } from "../../app-env";
import type { RunStub } from "../../run-stub";
import { asApiError } from "../../intake/admit";
import { ImageIntake } from "../../intake/images";
import { answerRun as answerOnRun } from "../../intake/answer-run";
import { spendLimitOf } from "./spend-limit";
import { unwrap } from "../../outcome";

/** POST /v1/runs/{id}/messages: a continue of a finished run, or a message a running run takes. */
export async function sendMessage(c: Context<AppEnv>, input: z.infer<typeof continueBodySchema>): Promise<MessageAnswer> {
  return sendMessageTo(c, c.var.run, input);
}

/** The same for a run the door opened itself (the A2A door's follow-up messages). */
export async function sendMessageTo(c: Context<AppEnv>, run: RunStub, input: z.infer<typeof continueBodySchema>): Promise<MessageAnswer> {
  const { content, maxSteps, mode } = input;
  try {
    admitContinue({ maxSteps }, c.var.settings);
  } catch (error) {
    throw asApiError(error);
  }
  const images = new ImageIntake();
  const body: ContinueBody = { content: await images.content(content, "content") };
  if (maxSteps !== undefined) body.maxSteps = maxSteps;
  if (mode !== undefined) body.mode = mode;
  return unwrap(await run.continueRun(body, images.upload(), spendLimitOf(c)));
}

/** POST /v1/runs/{id}/answer: an ask's, an approval's, a client tool's or a toolset batch's answer (the MCP door's elicitation answers take the same intake/answer-run.ts). */
export async function answerRun(c: Context<AppEnv>, input: AnswerInput): Promise<RunView> {
  return unwrap(await answerOnRun(c.var.run, input));
}

/** POST /v1/runs/{id}/retry: a failed run goes on from its last finished step. */
export async function retryRun(c: Context<AppEnv>): Promise<RunView> {
  return unwrap(await c.var.run.retry(spendLimitOf(c)));
}
