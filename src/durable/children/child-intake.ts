// A child run's body admitted at its start (docs/children.md): its template was admitted with its
// parent, by the parent's caller's rights; when the child starts, the one intake
// (src/intake/admit-run.ts) checks it again against today's settings (a cap lowered, a host taken
// off HTTP_TOOL_ALLOW, SCRIPTED_PROVIDER turned off, a key removed), so no child runs past what a
// new run may ask for. A refusal is the agent call's error result, naming the setting.
import type { NewRun } from "../../api/types";
import { admitRun } from "../../intake/admit-run";
import { intakeSettingsOf } from "../../intake/intake-settings";
import { describeRefusal, IntakeRefusal } from "../../intake/refusal";

type ChildRun = Omit<NewRun, "id" | "tokenHash" | "bodyHash">;

export function admitChild(env: Env, child: ChildRun): { ok: true; child: ChildRun } | { ok: false; reason: string } {
  const { messages, ...body } = child.body;
  try {
    const admitted = admitRun({
      body,
      caller: { kind: "admitted" },
      env,
      settings: intakeSettingsOf(env),
      resolved: { provider: child.provider, model: child.model },
      ...(child.dayLimitUsd === undefined ? {} : { dayLimitUsd: child.dayLimitUsd }),
    });
    return { ok: true, child: { ...child, body: { ...admitted.body, messages }, provider: admitted.provider, model: admitted.model } };
  } catch (error) {
    if (error instanceof IntakeRefusal) return { ok: false, reason: `the child run may not be made on this deployment (${describeRefusal(error)})` };
    throw error;
  }
}
