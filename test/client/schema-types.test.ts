// The client's types are the server's: what the zod schemas accept and produce (checked by tsc;
// the test itself only records that this file compiled).
import type { z } from "zod";
import { expect, it } from "vitest";
import type { answerBodySchema } from "../../src/api/schemas/person/answer-schemas";
import type { createRunBodySchema } from "../../src/api/schemas/runs/create-run-schemas";
import type { storedEventSchema, runEventSchema } from "../../src/api/schemas/streams/event-schemas";
import type { createdRunSchema, messagesSchema, runViewSchema } from "../../src/api/schemas/runs/run-view-schemas";
import type { AnswerRequest, ChatMessage, CreatedRun, CreateRunRequest, RunView, ScriptedTurn, StoredRunEvent, StreamEvent } from "../../src/client";
import type { AddCasesRequest, Comparison, CreateDatasetRequest, CreateExperimentRequest, DatasetsPage, DatasetView, ExperimentsPage, ExperimentView, StoredExperimentEvent } from "../../src/client";
import type { addCasesBodySchema, createDatasetBodySchema, datasetsPageSchema, datasetViewSchema } from "../../src/api/schemas/evals/dataset-schemas";
import type { comparisonSchema, createExperimentBodySchema, experimentsPageSchema, experimentViewSchema } from "../../src/api/schemas/evals/experiment-schemas";
import type { scriptSchema } from "../../src/providers/scripted/scripted";

type Assignable<From, To> = [From] extends [To] ? true : false;
type Check<T extends true> = T;

export type ClientTypeChecks = [
  // Requests: everything the client lets through, the server accepts, and the other way round.
  Check<Assignable<CreateRunRequest, z.input<typeof createRunBodySchema>>>,
  Check<Assignable<z.input<typeof createRunBodySchema>, CreateRunRequest>>,
  Check<Assignable<ScriptedTurn[], z.input<typeof scriptSchema>>>,
  Check<Assignable<z.input<typeof scriptSchema>, ScriptedTurn[]>>,
  Check<Assignable<AnswerRequest, z.input<typeof answerBodySchema>>>,
  Check<Assignable<z.input<typeof answerBodySchema>, AnswerRequest>>,
  // Answers and events: what the server sends is what the client's types say.
  Check<Assignable<z.infer<typeof runViewSchema>, RunView>>,
  Check<Assignable<z.infer<typeof createdRunSchema>, CreatedRun>>,
  Check<Assignable<z.infer<typeof messagesSchema>["messages"], ChatMessage[]>>,
  Check<Assignable<StoredRunEvent, z.infer<typeof storedEventSchema>>>,
  Check<Assignable<Exclude<z.infer<typeof runEventSchema>, { type: "text" | "text-reset" | "elicitation-failed" }> & { seq: number; at: string }, StreamEvent>>,
  Check<Assignable<Extract<z.infer<typeof runEventSchema>, { type: "text" | "text-reset" | "elicitation-failed" }>, StreamEvent>>,
  // Evals: datasets and experiments.
  Check<Assignable<CreateDatasetRequest, z.input<typeof createDatasetBodySchema>>>,
  Check<Assignable<z.input<typeof createDatasetBodySchema>, CreateDatasetRequest>>,
  Check<Assignable<AddCasesRequest, z.input<typeof addCasesBodySchema>>>,
  Check<Assignable<z.input<typeof addCasesBodySchema>, AddCasesRequest>>,
  Check<Assignable<CreateExperimentRequest, z.input<typeof createExperimentBodySchema>>>,
  Check<Assignable<z.input<typeof createExperimentBodySchema>, CreateExperimentRequest>>,
  Check<Assignable<z.infer<typeof datasetViewSchema>, DatasetView>>,
  Check<Assignable<z.infer<typeof datasetsPageSchema>, DatasetsPage>>,
  Check<Assignable<z.infer<typeof experimentsPageSchema>, ExperimentsPage>>,
  Check<Assignable<Omit<z.infer<typeof experimentViewSchema>, "variant">, Omit<ExperimentView, "variant">>>,
  Check<Assignable<z.infer<typeof comparisonSchema>, Comparison>>,
  Check<Assignable<StoredExperimentEvent["type"], "experiment-started" | "case-started" | "case-ended" | "experiment-ended">>,
];

it("client types match the API schemas (compile-time)", () => {
  const checks: ClientTypeChecks = [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true];
  expect(checks.every(Boolean)).toBe(true);
});
