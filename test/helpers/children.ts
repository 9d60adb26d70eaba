// Helpers for child-run tests (docs/children.md): agent tools with scripted children, and a tree of
// runs driven by hand — each run's alarms fired, each child's outbox delivered to its parent.
import { runInDurableObject } from "cloudflare:test";
import type { RunView, ToolRef } from "../../src/api/types";
import { deliverOutbox, outboxIdle } from "./inbox";
import { drive, stubFor, viewOf } from "./runs";

type Turn = { text?: string; toolCalls?: { id: string; name: string; input: unknown }[]; costUsd?: number };

/** An agent tool whose child plays `script` on the scripted provider. */
export function agentTool(name: string, script: Turn[], run: Record<string, unknown> = {}): ToolRef {
  return { type: "agent", name, description: `${name}: a helper agent`, run: { provider: "scripted", model: "scripted-model", minAnswerChars: 0, maxSteps: 10, budget: { usd: 0.05 }, script, ...run } } as unknown as ToolRef;
}

/** A turn that calls agent tools with `{task}`. */
export function callAgents(calls: [id: string, name: string, task: string][], costUsd = 0.01): Turn {
  return { text: "Handing out the work.", toolCalls: calls.map(([id, name, task]) => ({ id, name, input: { task } })), costUsd };
}

/** Fires the run's alarms while it steps, then drives each of its children (and theirs) to their end and delivers their reports; until the run stops or `rounds` run out. */
export async function driveTree(id: string, rounds = 20): Promise<RunView> {
  let view = await viewOf(stubFor(id));
  for (let round = 0; round < rounds; round++) {
    await drive(stubFor(id));
    view = await viewOf(stubFor(id));
    if (view.status !== "running") return view;
    const children = view.children ?? [];
    if (children.length === 0) continue;
    for (const child of children) await finishChild(child.id, rounds);
  }
  return view;
}

/** Drives one child's tree to its end and hands its outbox to its parent. */
export async function finishChild(id: string, rounds = 20): Promise<void> {
  await driveTree(id, rounds);
  await deliverReports(id);
}

/** Delivers a run's outbox (its reports to its parent among them) and waits for the deliveries. */
export async function deliverReports(id: string): Promise<void> {
  await outboxIdle(stubFor(id));
  await deliverOutbox(stubFor(id));
}

export async function alarmOf(id: string): Promise<number | null> {
  return runInDurableObject(stubFor(id), (_instance, state) => state.storage.getAlarm());
}

/** The child_run rows of a run (what its record of its children holds). */
export async function childRows(id: string): Promise<{ key: string; child_id: string; budget_usd: number; status: string; end_state: string | null }[]> {
  return runInDurableObject(stubFor(id), (_instance, state) =>
    state.storage.sql.exec<{ key: string; child_id: string; budget_usd: number; status: string; end_state: string | null }>("SELECT key, child_id, budget_usd, status, end_state FROM child_run ORDER BY rowid").toArray(),
  );
}
