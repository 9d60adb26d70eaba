// The console as an installed web app that rings, in headless Chromium against `wrangler dev`: it
// passes Chromium's installability checks (manifest, icons, service worker), its service worker
// registers and keeps the shell (the offline page shows without the network), a push delivered
// through DevTools' ServiceWorker domain shows a notification with the run's question, and opening
// that notification shows the run's waiting form — in the console that is open, and in a new
// window. "Notify me" subscribes (at the local push service: headless Chromium reaches no vendor's),
// the Worker's real encrypted push reaches it, and its decrypted payload is what DevTools delivers.
// The packaged Chromium (a headless shell) shows no notifications: there the two tests that need
// them are skipped by name (support/chromium.ts); the first runs on every Chromium.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, CDPSession, Worker } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, request } from "./support/api";
import { itShowingNotifications } from "./support/chromium";
import { ARTIFACTS, buildConsole, consolePage, launchChromium, text, WAIT } from "./support/console-browser";
import { startDevServer, type DevServer } from "./support/dev-server";
import { LOCAL_TOKEN, localVars } from "./support/local-vars";
import { startPushService, type PushService } from "../push-service/server";
import { freePort } from "./support/http-server";

const PORT = await freePort();

type Notice = { title: string; body: string; tag: string; data: { runId: string; url: string } };

/**
 * Records, inside the service worker, the next notification it shows: its title and options once
 * Chromium took it (showNotification resolved). Headless Chromium has no notification centre: the
 * notification database keeps a shown notification only until it next checks what is on screen, so
 * getNotifications() finds it for a moment or not at all (a wait on it failed under load, and a
 * read right after the push passed by luck); what the worker asked Chromium to show is what can be
 * checked.
 */
async function recordNextNotification(worker: Worker): Promise<void> {
  await worker.evaluate(() => {
    const scope = self as unknown as { registration: ServiceWorkerRegistration; shown?: Promise<unknown> };
    const registration = scope.registration;
    const show = registration.showNotification.bind(registration);
    scope.shown = new Promise((resolve, reject) => {
      registration.showNotification = (title, options = {}) =>
        show(title, options).then(
          () => resolve({ title, body: options.body, tag: options.tag, data: options.data }),
          (error: unknown) => reject(error),
        );
    });
  });
}

/** What the worker showed after recordNextNotification, within `timeoutMs`. */
async function nextNotification(worker: Worker, timeoutMs: number): Promise<Notice> {
  const shown = worker.evaluate(() => (self as unknown as { shown: Promise<unknown> }).shown) as Promise<Notice>;
  const late = new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error(`The service worker showed no notification within ${timeoutMs} ms of the push.`)), timeoutMs).unref());
  return Promise.race([shown, late]);
}

/** The service worker's registration id, as DevTools' ServiceWorker domain names it. */
async function registrationId(cdp: CDPSession, scope: string): Promise<string> {
  const found = new Promise<string>((resolve) => {
    cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
      const match = registrations.find((registration) => registration.scopeURL === scope && !registration.isDeleted);
      if (match !== undefined) resolve(match.registrationId);
    });
  });
  await cdp.send("ServiceWorker.enable");
  return found;
}

describe("the console as an installed app that rings", () => {
  const state = mkdtempSync(join(tmpdir(), "ratchet-console-push-"));
  const profile = mkdtempSync(join(tmpdir(), "ratchet-chromium-push-"));
  let dev: DevServer | undefined;
  let browser: BrowserContext | undefined;
  let pushService: PushService | undefined;

  beforeAll(async () => {
    buildConsole();
    pushService = await startPushService(localVars().VAPID_PUBLIC_KEY!);
    // The local VAPID pair of .dev.vars.example; the local push service is the one push host.
    dev = await startDevServer({ port: PORT, persistTo: state, vars: { PUSH_HOSTS: "http://127.0.0.1" } });
    browser = await launchChromium(profile);
    await browser.grantPermissions(["notifications"], { origin: dev.url });
  });

  afterAll(async () => {
    await browser?.close();
    await dev?.kill();
    await pushService?.close();
    rmSync(state, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  });

  it("passes Chromium's installability checks, and its service worker keeps the shell", async () => {
    const { page, errors } = await consolePage(browser!, dev!.url);
    const cdp = await browser!.newCDPSession(page);
    await page.evaluate(async () => void (await navigator.serviceWorker.ready));
    const manifest = (await cdp.send("Page.getAppManifest")) as { url: string; errors: unknown[] };
    expect(manifest.url).toBe(`${dev!.url}/console/manifest.webmanifest`);
    expect(manifest.errors).toEqual([]);
    const { installabilityErrors } = (await cdp.send("Page.getInstallabilityErrors")) as { installabilityErrors: unknown[] };
    expect(installabilityErrors).toEqual([]);
    const served = await fetch(`${dev!.url}/console/sw.js`);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-security-policy")).toContain("worker-src 'self'");
    // Offline, a page of the console is the offline page from the cache.
    await browser!.setOffline(true);
    try {
      await page.reload();
      await page.getByRole("heading", { name: "You are offline" }).waitFor(WAIT);
    } finally {
      await browser!.setOffline(false);
    }
    await page.reload();
    await page.getByRole("heading", { name: "Start a run" }).waitFor(WAIT);
    expect(errors.filter((error) => !error.includes("ERR_INTERNET_DISCONNECTED"))).toEqual([]);
    await page.close();
  });

  itShowingNotifications("Notify me subscribes; a run that waits is pushed (checked at the push service), shown as a notification, and opening it shows the waiting form", async () => {
    const subject = `phone-${Date.now()}`;
    const { token: userToken } = (await (await request(dev!.url, "/v1/tokens", LOCAL_TOKEN, { method: "POST", body: JSON.stringify({ subject }) })).json()) as { token: string };
    // Headless Chromium reaches no browser vendor's push service: this browser's pushManager hands
    // out a subscription at the local push service instead; everything after it is real.
    const subscription = pushService!.subscribe();
    await browser!.addInitScript(fakePushManager, subscription);
    const { page, errors } = await consolePage(browser!, dev!.url, { phone: true });
    await page.getByLabel(/^User token/).fill(userToken);
    await page.getByRole("button", { name: "Open inbox" }).click();
    const button = page.locator("#notify-button");
    await page.locator("#notify-state", { hasText: "Notifications: off" }).waitFor(WAIT);
    await button.click();
    await page.locator("#notify-state", { hasText: "Notifications: on" }).waitFor(WAIT);
    expect(await text(button)).toBe("Stop notifications");
    // Subscribed with this deployment's VAPID key, and held by the subject's inbox.
    expect(await page.evaluate(() => (window as unknown as { pushKeyUsed?: string }).pushKeyUsed)).toBe(localVars().VAPID_PUBLIC_KEY);
    const listed = (await (await request(dev!.url, "/v1/push/subscriptions", userToken)).json()) as { subscriptions: { endpoint: string }[] };
    expect(listed.subscriptions.map((item) => item.endpoint)).toEqual([subscription.endpoint]);

    const created = await createRun(dev!.url, LOCAL_TOKEN, { provider: "scripted", subject, messages: [{ role: "user", content: "hi" }], tools: ["ask"], script: [{ toolCalls: [{ id: "q", name: "ask", input: { question: "Which day suits you?" } }] }, { text: "Thanks." }] });
    const runId = created.run.id;
    await pushService!.until(() => pushService!.pushes(subscription.id).length > 0, 20_000, () => "no push reached the push service");
    const [push] = pushService!.pushes(subscription.id);
    expect(push!.problems).toEqual([]);
    expect(push!.payload).toEqual({ runId, kind: "run.waiting", question: "Which day suits you?", url: `${dev!.url}/console/#${runId}` });

    // What the browser's push service would hand the service worker: the decrypted payload.
    const cdp = await browser!.newCDPSession(page);
    const id = await registrationId(cdp, `${dev!.url}/console/`);
    const worker = await serviceWorker(browser!);
    await recordNextNotification(worker);
    await cdp.send("ServiceWorker.deliverPushMessage", { origin: dev!.url, registrationId: id, data: JSON.stringify(push!.payload) });
    const shown = await nextNotification(worker, WAIT.timeout);
    expect(shown).toEqual({ title: "A run is waiting for you", body: "Which day suits you?", tag: runId, data: { runId, url: `${dev!.url}/console/#${runId}` } });

    // Opened with the console open: the console shows the run, waiting for the answer.
    const closed = await worker.evaluate((notice) => {
      // What a tap on it dispatches (no DevTools command taps a notification, and headless Chromium
      // keeps none to tap: recordNextNotification): a notificationclick carrying what was shown.
      const scope = self as unknown as { dispatchEvent(event: Event): boolean; ExtendableEvent: new (type: string) => Event };
      let closed = false;
      const event = Object.assign(new scope.ExtendableEvent("notificationclick"), { notification: { ...notice, close: () => (closed = true) } });
      scope.dispatchEvent(event);
      return closed;
    }, shown);
    // The tap closes the notification.
    expect(closed).toBe(true);
    await page.locator("#waiting-question", { hasText: "Which day suits you?" }).waitFor(WAIT);
    expect(await text(page.locator("#run-id"))).toBe(runId);
    await page.screenshot({ path: join(ARTIFACTS, "console-push-opened.png"), fullPage: true, animations: "disabled" });
    expect(errors).toEqual([]);
    await page.close();

    // The notification's page in a new window (the console closed): the same form, with the user
    // token Notify me remembered on this device; answered there.
    const fresh = await browser!.newPage();
    await fresh.goto(`${dev!.url}/console/#${runId}`);
    await fresh.locator("#waiting-question", { hasText: "Which day suits you?" }).waitFor(WAIT);
    await fresh.getByLabel("Your answer").fill("Friday");
    await fresh.getByRole("button", { name: "Answer", exact: true }).click();
    await fresh.locator("#run-status", { hasText: "finished" }).waitFor(WAIT);
    await fresh.close();
  });

  itShowingNotifications("Stop notifications removes the subscription and forgets the token", async () => {
    const { page } = await consolePage(browser!, dev!.url);
    const subject = `stop-${Date.now()}`;
    const { token: userToken } = (await (await request(dev!.url, "/v1/tokens", LOCAL_TOKEN, { method: "POST", body: JSON.stringify({ subject }) })).json()) as { token: string };
    await page.getByLabel(/^User token/).fill(userToken);
    await page.getByRole("button", { name: "Open inbox" }).click();
    await page.locator("#notify-state", { hasText: "Notifications: off" }).waitFor(WAIT);
    await page.locator("#notify-button").click();
    await page.locator("#notify-state", { hasText: "Notifications: on" }).waitFor(WAIT);
    await page.locator("#notify-button").click();
    await page.locator("#notify-state", { hasText: "Notifications: off" }).waitFor(WAIT);
    const listed = (await (await request(dev!.url, "/v1/push/subscriptions", userToken)).json()) as { subscriptions: unknown[] };
    expect(listed.subscriptions).toEqual([]);
    expect(await page.evaluate(() => localStorage.getItem("ratchet:push-user-token"))).toBeNull();
    await page.close();
  });
});

/**
 * Runs in the page before its scripts: pushManager hands out `subscription` (at the local push
 * service) and remembers the applicationServerKey it was asked with.
 */
function fakePushManager(subscription: { endpoint: string; keys: { p256dh: string; auth: string } }): void {
  const page = window as unknown as { pushKeyUsed?: string; pushSubscribed?: boolean };
  const fake = {
    endpoint: subscription.endpoint,
    toJSON: () => ({ endpoint: subscription.endpoint, expirationTime: null, keys: subscription.keys }),
    unsubscribe: async () => {
      page.pushSubscribed = false;
      return true;
    },
  };
  PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
    const key = new Uint8Array(options?.applicationServerKey as ArrayBuffer);
    page.pushKeyUsed = btoa(String.fromCharCode(...key)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    page.pushSubscribed = true;
    return fake as unknown as PushSubscription;
  };
  PushManager.prototype.getSubscription = async () => (page.pushSubscribed === true ? (fake as unknown as PushSubscription) : null);
}

/** The console's service worker, as playwright reaches it. */
async function serviceWorker(browser: BrowserContext): Promise<Worker> {
  return browser.serviceWorkers().find((worker) => worker.url().endsWith("/console/sw.js")) ?? (await browser.waitForEvent("serviceworker", WAIT));
}
