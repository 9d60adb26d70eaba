// Token comparison timing inside workerd (`npm run bench:auth`): does the time to compare a
// presented token with the real one depend on how many leading characters they share? Printed,
// never asserted (a timed assertion on a shared machine would be a flaky test).
//
//   - secretsEqual (src/http/auth/secrets-equal.ts): the deployment token check at the edge;
//   - sameDigest (src/durable/run/token-check.ts): the run token check in the run object, which
//     compares the SHA-256 hex of the presented token with the stored one;
//   - a plain `===` on long strings, as a control: it stops at the first difference, so it shows
//     what a leak looks like to this very measurement.
//
// Candidates share 0, half, and all but one of the real value's leading characters (and, as a
// reference, all of them). The classes are measured in interleaved rounds, in a new random order
// each round, each round a batch of many comparisons (the clock here moves in whole milliseconds).
import { describe, expect, it } from "vitest";
import { sameDigest } from "../src/durable/run/token-check";
import { secretsEqual } from "../src/http/auth/secrets-equal";
import { sha256Hex } from "../src/lib/text/encoding";
import { prefixCandidates, shuffle, type Candidate } from "./support/prefix-candidates";

const ROUNDS = Number(process.env.VITE_AUTH_BENCH_ROUNDS ?? 60);
const log = (line: string) => console.log(`[bench:auth] ${line}`);

/** The prefix candidates and, as a reference, the real value itself. */
function candidates(real: string, alphabet: string): Candidate[] {
  return [...prefixCandidates(real, alphabet), { label: "equal (reference)", value: real }];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
/** Standard error of the mean. */
const sem = (values: number[]) => {
  const m = mean(values);
  return Math.sqrt(values.reduce((sum, v) => sum + (v - m) ** 2, 0) / (values.length - 1) / values.length);
};

/** Times `batch` comparisons of each candidate per round, interleaved; answers µs per comparison. */
async function measure(name: string, cands: Candidate[], batch: number, compare: (candidate: string) => boolean | Promise<boolean>): Promise<void> {
  const samples = new Map(cands.map((c) => [c.label, [] as number[]]));
  // Warm-up: the first rounds pay for compilation.
  for (const c of cands) for (let i = 0; i < batch; i++) await compare(c.value);
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of shuffle(cands)) {
      const started = performance.now();
      let equal = 0;
      for (let i = 0; i < batch; i++) if (await compare(c.value)) equal++;
      const elapsed = performance.now() - started;
      expect(equal).toBe(c.label.startsWith("equal") ? batch : 0);
      samples.get(c.label)!.push((elapsed * 1000) / batch);
    }
  }
  log(`${name}: ${ROUNDS} interleaved rounds × ${batch} comparisons per candidate, µs per comparison (mean ± standard error)`);
  for (const c of cands) {
    const values = samples.get(c.label)!;
    log(`    ${c.label.padEnd(20)} mean ${mean(values).toFixed(3)} ± ${sem(values).toFixed(3)}  median ${median(values).toFixed(3)}  (min ${Math.min(...values).toFixed(3)}, max ${Math.max(...values).toFixed(3)})`);
  }
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

function randomToken(length: number, alphabet = BASE64URL): string {
  let out = "";
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(Math.min(65_536, length - out.length)));
    out += Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
  }
  return out;
}

describe("token comparison timing", () => {
  it("does not depend on how many leading characters match", async () => {
    log(`runtime: workerd (vitest-plugin); clock resolution 1 ms, so each sample is a batch`);

    // The deployment token: as long as a real secret would be (here 64 characters).
    const apiToken = randomToken(64);
    await measure("secretsEqual(presented, API_TOKEN) — deployment token, 64 chars", candidates(apiToken, BASE64URL), 2000, (candidate) => secretsEqual(candidate, apiToken));

    // A long deployment token: a leak in a per-character comparison would grow with the length.
    const longToken = randomToken(4096);
    await measure("secretsEqual(presented, API_TOKEN) — 4,096-char token", candidates(longToken, BASE64URL), 1000, (candidate) => secretsEqual(candidate, longToken));

    // The run token check: the object compares the hex SHA-256 of the presented token with its own.
    const stored = await sha256Hex(`rt_${randomToken(43)}`);
    await measure("sameDigest(stored, sha256(presented)) — run token, 64 hex chars", candidates(stored, "0123456789abcdef"), 20_000, (candidate) => sameDigest(stored, candidate));

    // The control: === on 1 MiB strings built separately (no shared hash, no interning).
    const big = randomToken(1 << 20);
    const control = candidates(big, BASE64URL).map((c) => ({ label: c.label, value: c.value.split("").join("") }));
    await measure("control: presented === real on 1 MiB strings (not constant-time)", control, 40, (candidate) => candidate === big);
  });
});
