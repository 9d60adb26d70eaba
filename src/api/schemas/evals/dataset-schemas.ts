// The zod schemas of datasets (docs/evals.md, docs/api.md): a dataset's name, its cases as a client
// gives them (a recorded run by id, or an inline input, each with an optional reference), a
// selection of recorded runs (by subject or schedule, agent, tag and creation time), the bodies of
// POST /v1/datasets and POST /v1/datasets/{name}/cases, and a dataset's view.
import { z } from "@hono/zod-openapi";
import { agentNameSchema } from "../agents/agent-ref-schemas";
import { chatMessageInputSchema, chatMessageSchema } from "../runs/content-schemas";
import { runStatusSchema } from "../runs/run-view-schemas";
import { subjectSchema } from "../../rules/subject";
import { tagSchema } from "../../rules/tags";
import { isoTimeSchema } from "../../rules/iso-time";

/** A dataset's name: 1–64 of a-z, 0-9, `.`, `_` and `-`, starting with a letter or digit. */
export const DATASET_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const datasetNameSchema = z
  .string()
  .regex(DATASET_NAME_PATTERN, { message: "Must be 1–64 characters of a-z, 0-9, . _ and -, starting with a letter or digit." })
  .openapi({ example: "support-golden" });

/** The most runs one selection adds. */
export const SELECT_LIMIT_MAX = 200;
const REFERENCE_TEXT_MAX = 64 * 1024;

export const caseReferenceSchema = z
  .strictObject({
    finalText: z.string().max(REFERENCE_TEXT_MAX).optional().openapi({ description: "The final text the case should end with (exact, and the rubric's reference)." }),
    output: z.unknown().optional().openapi({ description: "The typed output the case should hand in (fields, and the rubric's reference)." }),
  })
  .openapi("CaseReference");

const recordedReferenceField = z.boolean().optional().openapi({ description: "Take the recorded run's own final text and output as the case's reference." });

const runCaseSchema = z.strictObject({
  runId: z.string().min(1).max(128).openapi({ description: "A recorded run: the case forks it at step 0 and its tool calls are answered from its journal." }),
  reference: caseReferenceSchema.optional(),
  recordedReference: recordedReferenceField,
});

const inlineCaseSchema = z
  .strictObject({
    messages: z.array(chatMessageInputSchema).min(1, { message: "At least one message is needed." }).openapi({ description: "An inline input: the messages a case's run starts with (text only)." }),
    reference: caseReferenceSchema.optional(),
  })
  .superRefine((body, context) => {
    body.messages.forEach((message, index) => {
      const content = (message as { content: unknown }).content;
      if (Array.isArray(content) && content.some((part: { type?: string }) => part.type !== "text")) {
        context.addIssue({ code: "custom", path: ["messages", index, "content"], message: "An inline case's messages are text only: a case with images is a recorded run." });
      }
      if ((message as { role: string }).role === "tool") context.addIssue({ code: "custom", path: ["messages", index, "role"], message: "An inline case starts a run: user and assistant messages only." });
    });
  });

export const caseInputSchema = z.union([runCaseSchema, inlineCaseSchema]).openapi("CaseInput", { description: "A recorded run ({runId}) or an inline input ({messages}), each with an optional reference." });

export const runSelectionSchema = z
  .strictObject({
    subject: subjectSchema.optional().openapi({ description: "The runs of this subject (its inbox's listing). Give subject or scheduleId." }),
    scheduleId: z.string().min(1).max(128).optional().openapi({ description: "The runs of this schedule." }),
    agent: agentNameSchema.optional().openapi({ description: "Only runs of this stored agent." }),
    tag: tagSchema.optional().openapi({ description: "Only runs created with this tag." }),
    from: isoTimeSchema.optional().openapi({ description: "Only runs created at or after this time." }),
    to: isoTimeSchema.optional().openapi({ description: "Only runs created before this time." }),
    status: runStatusSchema.optional().openapi({ description: 'Only runs in this status. Default "finished".' }),
    limit: z.number().int().gte(1).lte(SELECT_LIMIT_MAX).optional().openapi({ description: `The most runs added, newest first: 1 to ${SELECT_LIMIT_MAX}, default 50.` }),
    recordedReference: recordedReferenceField,
  })
  .refine((selection) => selection.subject !== undefined || selection.scheduleId !== undefined, { message: "Give subject or scheduleId: runs are listed per subject or per schedule.", path: ["subject"] })
  .openapi("RunSelection");

export const createDatasetBodySchema = z
  .strictObject({
    name: datasetNameSchema,
    description: z.string().min(1).max(4_000).optional(),
    cases: z.array(caseInputSchema).optional(),
    select: runSelectionSchema.optional().openapi({ description: "Recorded runs to add as cases, after `cases`." }),
  })
  .openapi("CreateDatasetBody");

export const addCasesBodySchema = z
  .strictObject({
    cases: z.array(caseInputSchema).optional(),
    select: runSelectionSchema.optional().openapi({ description: "Recorded runs to add as cases, after `cases`." }),
  })
  .refine((body) => (body.cases?.length ?? 0) > 0 || body.select !== undefined, { message: "Nothing to add: give cases or select." })
  .openapi("AddCasesBody");

export const datasetCaseSchema = z
  .object({
    n: z.number().int().openapi({ description: "The case's number in the dataset, from 1, kept by every later version." }),
    runId: z.string().optional(),
    messages: z.array(chatMessageSchema).optional(),
    reference: caseReferenceSchema.optional(),
    addedIn: z.number().int().openapi({ description: "The version that added the case." }),
  })
  .openapi("DatasetCase");

const datasetFields = {
  name: z.string(),
  version: z.number().int().openapi({ description: "1 when made; one more for each change." }),
  description: z.string().optional(),
  createdAt: z.string(),
  versionCreatedAt: z.string(),
};

export const datasetViewSchema = z.object({ ...datasetFields, cases: z.array(datasetCaseSchema) }).openapi("Dataset");
export const datasetSummarySchema = z.object({ ...datasetFields, cases: z.number().int().openapi({ description: "How many cases the version holds." }) }).openapi("DatasetSummary");
export const datasetAnswerSchema = z.object({ dataset: datasetViewSchema }).openapi("DatasetAnswer");
export const datasetsPageSchema = z
  .object({ datasets: z.array(datasetSummarySchema), nextCursor: z.string().optional().openapi({ description: "Absent on the last page." }) })
  .openapi("DatasetsPage");

export type CaseInput = z.infer<typeof caseInputSchema>;
export type RunSelection = z.infer<typeof runSelectionSchema>;
export type CreateDatasetInput = z.infer<typeof createDatasetBodySchema>;
export type AddCasesInput = z.infer<typeof addCasesBodySchema>;
