import type { Generate } from "../loop/types";

/** A model provider: one `generate` that the loop calls for every model step. */
export type Provider = { name: "anthropic" | "scripted"; generate: Generate };
