// The "Start an experiment" form's request (POST /v1/experiments), pure: its fields as typed, made
// into the body, or what is wrong with them that only the page can tell (a field that is not JSON).
// Everything else (a dataset that is not there, a scorer or a variant field the API refuses) is
// the API's to say, in its own error shape, so no check lives here twice.

export type ExperimentFields = {
  name: string;
  dataset: string;
  /** "" for changes to each recording (then `changes` holds them), or an agent's version as "name@version". */
  variant: string;
  changes: string;
  scorers: string;
  mode: string;
  budget: string;
  baseline: string;
};

/** An agent's version as the variant select holds it. */
export function agentChoice(agent: { name: string; version: number }): string {
  return `${agent.name}@${agent.version}`;
}

function parsed(label: string, text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { error: `${label} are not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export function experimentBody(fields: ExperimentFields): { body: Record<string, unknown> } | { error: string } {
  const name = fields.name.trim();
  const baseline = fields.baseline.trim();
  const budget = fields.budget.trim();
  let variant: unknown;
  if (fields.variant === "") {
    const changes = parsed("The changes", fields.changes.trim() === "" ? "{}" : fields.changes);
    if ("error" in changes) return changes;
    variant = changes.value;
  } else {
    const at = fields.variant.lastIndexOf("@");
    variant = { agent: { name: fields.variant.slice(0, at), version: Number(fields.variant.slice(at + 1)) } };
  }
  const scorers = parsed("The scorers", fields.scorers);
  if ("error" in scorers) return scorers;
  const body: Record<string, unknown> = { dataset: fields.dataset, variant, scorers: scorers.value, mode: fields.mode };
  if (name !== "") body.name = name;
  // A number the API judges (above 0, within EXPERIMENT_BUDGET_USD_LIMIT); text that is no number goes as it is, and the API says so.
  if (budget !== "") body.budget = { usd: Number.isFinite(Number(budget)) ? Number(budget) : budget };
  if (baseline !== "") body.baseline = baseline;
  return { body };
}
