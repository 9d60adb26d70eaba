// Runs in Node before the workerd tests: the local push service (./server.ts), which checks every
// push with code that is not the project's, and the VAPID pair the test Worker signs with.
import type { TestProject } from "vitest/node";
import { TEST_VAPID_PRIVATE_KEY, TEST_VAPID_PUBLIC_KEY } from "./keys";
import { startPushService } from "./server";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const service = await startPushService(TEST_VAPID_PUBLIC_KEY);
  project.provide("pushServiceUrl", service.url);
  project.provide("vapidPublicKey", TEST_VAPID_PUBLIC_KEY);
  project.provide("vapidPrivateKey", TEST_VAPID_PRIVATE_KEY);
  return () => service.close();
}
