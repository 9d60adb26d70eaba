// A person's actions on a run as the routes do them: POST /v1/runs/{id}/messages, /answer, /retry
// and /fork, and the AI SDK chat's POST, which does the same through these (never a copy of a
// check). Each takes a body its route's schema checked and answers the run object's outcome, unwrapped.
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
import { prepareFork, type ForkCaller } from "../../intake/fork-run";
import { limitSubjectCreation } from "../../auth/rate-limit";
import { runStub } from "../../run-stub";
import type { ForkInput } from "../../../api/schemas/runs/fork-schemas";

/** POST /v1/runs/{id}/messages: a continue of a finished run, or a message a running run takes. */
export async function sendMessage(c: Context<AppEnv>, input: z.infer<typeof continueBodySchema>): Promise<MessageAnswer> {
  return sendMessageTo(c, c.var.run, input);
}

/** The same for a run the door opened itself (the A2A door's follow-up messages). */
export async function sendMessageTo(c: Context<AppEnv>, run: RunStub, input: z.infer<typeof continueBodySchema>): Promise<MessageAnswer> {
  const { content, maxSteps, mode, messageId } = input;
  try {
    admitContinue({ maxSteps }, c.var.settings);
  } catch (error) {
    throw asApiError(error);
  }
  const images = new ImageIntake();
  const body: ContinueBody = { content: await images.content(content, "content") };
  if (maxSteps !== undefined) body.maxSteps = maxSteps;
  if (mode !== undefined) body.mode = mode;
  if (messageId !== undefined) body.messageId = messageId;
  return unwrap(await run.continueRun(body, images.upload(), spendLimitOf(c)));
}

/** POST /v1/runs/{id}/answer: an ask's, an approval's, a client tool's or a toolset batch's answer (the MCP door's elicitation answers take the same intake/answer-run.ts). `run`: the AI SDK chat's answers go to the run its chat follows. */
export async function answerRun(c: Context<AppEnv>, input: AnswerInput, run: RunStub = c.var.run): Promise<RunView> {
  return unwrap(await answerOnRun(run, input));
}

/** POST /v1/runs/{id}/retry: a failed run goes on from its last finished step. */
export async function retryRun(c: Context<AppEnv>, run: RunStub = c.var.run): Promise<RunView> {
  return unwrap(await run.retry(spendLimitOf(c)));
}

function forkCallerOf(c: Context<AppEnv>): ForkCaller {
  if (c.var.caller !== "user") return { kind: c.var.caller };
  const user: ForkCaller = { kind: "user", subject: c.var.user.subject };
  if (c.var.user.budgetUsdPerDay !== undefined) user.budgetUsdPerDay = c.var.user.budgetUsdPerDay;
  return user;
}

/**
 * POST /v1/runs/{id}/fork: a new run from run `source`'s prefix at `body.atStep`, as its caller
 * (the route's own run by default; the AI SDK chat's Regenerate forks the run its chat follows).
 */
export async function forkRun(c: Context<AppEnv>, body: ForkInput, idempotencyKey: string | undefined, source: RunStub = c.var.run): Promise<{ run: RunView; token: string }> {
  const prefix = unwrap(await source.forkPrefix(body.atStep));
  // A run token's fork is its run's subject's new run (requireRun counted the other tokens'); a run with no subject is refused by the intake.
  if (c.var.caller === "run" && prefix.subject !== undefined) await limitSubjectCreation(c.env, prefix.subject);
  const { newRun, token, spec, images } = await prepareFork({
    body,
    prefix,
    env: c.env,
    settings: c.var.settings,
    idempotencyKey,
    findEarlier: (candidate) => runStub(c.env, candidate.id).exists(),
    caller: forkCallerOf(c),
    origin: new URL(c.req.url).origin,
  });
  // The source's body went into newRun's: the fork's object is not sent it twice.
  const { body: _sourceBody, ...carried } = prefix;
  const run = unwrap(await runStub(c.env, newRun.id).createFork(newRun, carried, spec, images));
  return { run, token };
}
