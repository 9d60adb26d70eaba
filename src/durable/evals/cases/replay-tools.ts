// A case run's tools, answered from its recording (docs/evals.md, "Tools answered from the
// recording"): each tool the run itself runs (a plain run, or an async start + wait) is wrapped so
// that a call first finds how it is answered — the recorded call it matches (the same tool and the
// same canonical input, both as the tool's schema reads them; the n-th such call of the case takes
// the n-th of the recording), then from the recording, live or refused as the experiment's mode
// says (src/evals/replay-answer.ts). The decision is stored by the call's step key before anything
// is answered, so a call asked again after a crash is answered the same way; what it answers is
// then journaled as any tool result. Tools the person answers (asks, client tools) are untouched.
import type { ExperimentOfRun } from "../../../api/resources/eval-types";
import { callFingerprint } from "../../../evals/call-fingerprint";
import { recordedOutput, refusedText, replayAnswer } from "../../../evals/replay-answer";
import { validateInput } from "../../../loop/tool-calls/tool-definition";
import type { AnyToolSpec, ToolContext, ToolOutput } from "../../../loop/types";
import { insertUse, readReplay, recordedInputs, recordedValue, useAt, usesOf, type StoredUse } from "./replay-store";

/** Where a call sits: its segment's prefix (`s2/`) and the model calls before that segment. */
export type CallPlace = { prefix: string; stepsBefore: number };

const CALL_KEY = /^(tool|start)\/(\d+)\//;

type Handle = { recorded: number } | { refused: true } | { live: unknown };

function refused(name: string): ToolOutput {
  return { content: refusedText(name), isError: true, costUsd: 0 };
}

class RecordedTool {
  private index: Map<string, number[]> | undefined;

  constructor(
    private readonly sql: SqlStorage,
    private readonly replay: ExperimentOfRun,
    private readonly spec: AnyToolSpec,
    private readonly place: CallPlace,
  ) {}

  /** The recording's calls of this tool by fingerprint, their inputs read as the tool's schema reads them (read once). */
  private recorded(): Map<string, number[]> {
    if (this.index !== undefined) return this.index;
    const index = new Map<string, number[]>();
    for (const { i, input } of recordedInputs(this.sql, this.spec.name)) {
      const checked = validateInput(this.spec, input);
      const fingerprint = callFingerprint(this.spec.name, checked.ok ? checked.value : input);
      index.set(fingerprint, [...(index.get(fingerprint) ?? []), i]);
    }
    this.index = index;
    return index;
  }

  /** How the call at `context.key` is answered: as before when it was asked before, else decided and stored now. */
  decide(input: unknown, context: ToolContext): StoredUse {
    const key = this.place.prefix + context.key;
    const earlier = useAt(this.sql, key);
    if (earlier !== undefined) return earlier;
    const fingerprint = callFingerprint(this.spec.name, input);
    const candidate = this.recorded().get(fingerprint)?.[usesOf(this.sql, fingerprint)];
    const answered = replayAnswer(this.replay.mode, candidate);
    const local = Number(CALL_KEY.exec(context.key)?.[2] ?? 0);
    const use = { key, step: local === 0 ? 0 : this.place.stepsBefore + local, name: this.spec.name, input, fingerprint, answered, ...(candidate === undefined ? {} : { index: candidate }) };
    insertUse(this.sql, use);
    return use;
  }

  answerOf(use: StoredUse): ToolOutput | undefined {
    if (use.answered === "recording") return recordedOutput(recordedValue(this.sql, use.index!));
    if (use.answered === "refused") return refused(this.spec.name);
    return undefined;
  }

  wrapped(): AnyToolSpec {
    const { spec } = this;
    if (spec.client === true) return spec;
    if (spec.run !== undefined) {
      const run = spec.run.bind(spec);
      return { ...spec, run: async (input, context) => this.answerOf(this.decide(input, context)) ?? run(input, context) };
    }
    if (spec.start === undefined || spec.wait === undefined) return spec;
    const start = spec.start.bind(spec);
    const wait = spec.wait.bind(spec);
    return {
      ...spec,
      start: async (input, context) => {
        const use = this.decide(input, context);
        if (use.answered === "recording") return { handle: { recorded: use.index! } satisfies Handle, costUsd: 0 };
        if (use.answered === "refused") return { handle: { refused: true } satisfies Handle, costUsd: 0 };
        const started = await start(input, context);
        return { ...started, handle: { live: started.handle } satisfies Handle };
      },
      wait: async (handle, context) => {
        const held = handle as Handle;
        if ("recorded" in held) return recordedOutput(recordedValue(this.sql, held.recorded));
        if ("refused" in held) return refused(spec.name);
        return wait(held.live, context);
      },
    };
  }
}

/** The run's tools as its loop calls them: unchanged for a run no experiment made. */
export function withRecording(sql: SqlStorage, tools: AnyToolSpec[], place: CallPlace): AnyToolSpec[] {
  const replay = readReplay(sql);
  if (replay === undefined) return tools;
  return tools.map((spec) => new RecordedTool(sql, replay, spec, place).wrapped());
}
