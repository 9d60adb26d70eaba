// An agent's template, checked when a version is made by the same intake as a run
// (src/intake/admit-run.ts), for the deployment token that makes it: each issue's path under `run.`
// (`run.tools.0`), where a run would name `tools.0`. What the intake resolved it to is kept with the
// version, so the version runs on what it was checked with, but for a template that names no
// provider (and no script): its provider is "default", resolved again at each run from the
// deployment's keys (and its model too, unless the template names one), so an agent made before a
// key was set runs on that key's provider once it is set (docs/agents.md, "Provider and model").
import { keptProvider, type AgentProvider } from "../../api/resources/agent-types";
import type { RunTemplate } from "../../api/types";
import type { Settings } from "../../config/settings";
import { admitRun } from "../../intake/admit-run";
import { IntakeRefusal, refusalUnder } from "../../intake/refusal";
import { asApiError } from "../intake/admit";

export function admitAgentTemplate(env: Env, settings: Settings, run: RunTemplate): { provider: AgentProvider; model: string } {
  try {
    return keptProvider(run, admitRun({ body: run, caller: { kind: "deployment" }, env, settings }));
  } catch (error) {
    throw asApiError(error instanceof IntakeRefusal ? refusalUnder("run", error) : error);
  }
}
