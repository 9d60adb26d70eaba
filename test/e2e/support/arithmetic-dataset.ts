// The dataset the experiment tests run against `wrangler dev` (scripted provider): three recorded
// runs (2+2, 2+2 asked another way, 3*3), each a calculator call and an answer in words, each kept
// as its own case with its recording as the reference.
import { createRun, request } from "./api";
import { waitForEnd } from "./run-events";

/** A run recorded to its end: `question`, a calculator call with `expression`, and `answer`; its id. `fields` go into its body. */
export async function recordCalculatorRun(base: string, token: string, question: string, expression: string, answer: string, fields: Record<string, unknown> = {}): Promise<string> {
  const run = await createRun(base, token, {
    ...fields,
    tools: ["calculator"],
    minAnswerChars: 0,
    messages: [{ role: "user", content: question }],
    script: [{ toolCalls: [{ name: "calculator", input: { expression } }] }, { text: answer }],
  });
  await waitForEnd(base, run);
  return run.id;
}

/** The three recordings, made in order, and the dataset `name` of them; the recordings' run ids. */
export async function arithmeticDataset(base: string, token: string, name: string, fields: Record<string, unknown> = {}): Promise<string[]> {
  const runs = [
    await recordCalculatorRun(base, token, "What is 2+2?", "2+2", "Four.", fields),
    await recordCalculatorRun(base, token, "How much is two plus two?", "2+2", "Four.", fields),
    await recordCalculatorRun(base, token, "What is 3*3?", "3*3", "Nine.", fields),
  ];
  const made = await request(base, "/v1/datasets", token, { method: "POST", body: JSON.stringify({ name, cases: runs.map((runId) => ({ runId, recordedReference: true })) }) });
  if (made.status !== 201) throw new Error(`dataset ${name}: ${made.status} ${await made.text()}`);
  return runs;
}
