// The run object's outbox (outbox.ts) wired to where each of its deliveries goes: the subject's
// inbox, the run's schedule, a case run's experiment, a child's parent, its stored agent's index of
// runs, webhook receivers and the OTLP endpoint. The engine's
// fetch and clock are read at each call, so what a test puts in their place is what the outbox uses.
import type { EngineContext } from "../engine/engine-context";
import { seedRunOf } from "../telemetry/span-writer";
import { deliverToParent } from "../children/child-report";
import { deliverToInbox } from "./channels/inbox-delivery";
import { Outbox } from "./outbox";
import { deliverToSchedule } from "./channels/schedule-delivery";
import { deliverToAgentRuns } from "./channels/agent-runs-delivery";
import { deliverToExperiment } from "./channels/experiment-delivery";
import { spanSender } from "./channels/span-sender";
import { webhookSender } from "./channels/webhook-sender";

/** The run's outbox; `onSettled` runs after an attempt moved its rows on (the object sets its next alarm). */
export function runOutbox(engine: EngineContext, onSettled: () => void): Outbox {
  const { ctx, env } = engine;
  return new Outbox({
    sql: ctx.storage.sql,
    now: () => engine.now(),
    random: Math.random,
    sendInbox: (subject, changes) => deliverToInbox(env, subject, changes),
    sendSchedule: (scheduleId, changes) => deliverToSchedule(env, scheduleId, changes),
    sendAgentRuns: (agentName, changes) => deliverToAgentRuns(env, agentName, changes),
    sendParent: (parentId, reports) => deliverToParent(env, parentId, reports),
    sendExperiment: (experimentId, changes) => deliverToExperiment(env, experimentId, changes),
    sendWebhook: webhookSender(env, (input, init) => engine.fetch(input, init), () => engine.now()),
    sendSpans: spanSender(env, (input, init) => engine.fetch(input, init)),
    seedRun: () => seedRunOf(ctx.storage.sql),
    onSettled,
  });
}
