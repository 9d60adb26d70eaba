// "Start an experiment", under the experiments list: a dataset (the deployment's, by name), a
// variant (a stored agent's version, or changes to each recording as JSON), the scorers as JSON,
// how tools are answered, a budget and a baseline. Its request is experiment-body.ts's; a refusal
// shows in the API's words; a new experiment opens on the page.
import type { DatasetSummary } from "../../src/api/resources/eval-types";
import type { AgentItem } from "../agents-panel";
import { agentLabel } from "../agents-panel";
import { byId, el, show } from "../dom";
import { onSubmit, tell } from "../form-submit";
import { agentChoice, experimentBody, type ExperimentFields } from "./experiment-body";

export class ExperimentForm {
  private readonly form = byId("experiment-form", HTMLFormElement);
  private readonly dataset = byId("experiment-dataset-select", HTMLSelectElement);
  private readonly variant = byId("experiment-variant-select", HTMLSelectElement);
  private readonly changes = byId("experiment-changes-field", HTMLDivElement);
  private readonly error = byId("experiment-form-error", HTMLParagraphElement);
  private start: (body: Record<string, unknown>) => Promise<void> = async () => undefined;

  constructor() {
    this.variant.addEventListener("change", () => show(this.changes, this.variant.value === ""));
    onSubmit(this.form, this.error, () => {
      const made = experimentBody(this.fields());
      return "error" in made ? made.error : () => this.start(made.body);
    });
  }

  /** The choices the token sees, and what a submit does with the body. */
  open(datasets: DatasetSummary[], agents: AgentItem[], start: (body: Record<string, unknown>) => Promise<void>): void {
    this.start = start;
    this.dataset.replaceChildren(...datasets.map((dataset) => el("option", { text: `${dataset.name} · v${dataset.version} (${dataset.cases} cases)`, attrs: { value: dataset.name } })));
    this.variant.replaceChildren(
      el("option", { text: "Changes to each recording (below)", attrs: { value: "" } }),
      ...agents.map((agent) => el("option", { text: `Agent ${agentLabel(agent)}`, attrs: { value: agentChoice(agent) } })),
    );
    show(this.changes, true);
    tell(this.error, datasets.length === 0 ? "No dataset yet: POST /v1/datasets makes one of recorded runs." : undefined);
  }

  private fields(): ExperimentFields {
    const data = new FormData(this.form);
    const field = (name: string) => String(data.get(name) ?? "");
    return { name: field("name"), dataset: field("dataset"), variant: field("variant"), changes: field("changes"), scorers: field("scorers"), mode: field("mode"), budget: field("budget"), baseline: field("baseline") };
  }
}
