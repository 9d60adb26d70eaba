// A benchmark's `wrangler dev`: started from a snapshot of the project (of this checkout, or of
// `root`: another checkout measured with the same bench), persisting to a temporary folder, and all
// of it killed and removed once the bench's work is done, whatever became of it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { snapshotProject, startDevServer, type DevOptions, type DevServer } from "../../test/e2e/support/dev-server";

export type DevBench = Omit<DevOptions, "persistTo" | "cwd"> & {
  /** The temporary folder's prefix. */
  name: string;
  /** The checkout to snapshot (its src, config and the like: a snapshot leaves out test and bench); this one by default. */
  root?: string;
};

export async function withDevServer({ name, root, ...options }: DevBench, work: (dev: DevServer) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), name));
  const snapshot = snapshotProject(root);
  try {
    const dev = await startDevServer({ ...options, persistTo: dir, cwd: snapshot.dir });
    try {
      await work(dev);
    } finally {
      await dev.kill();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    snapshot.remove();
  }
}
