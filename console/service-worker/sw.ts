// The console's service worker (built to public/console/sw.js, scope /console/): it keeps the
// console's shell in a cache, so the installed app opens and shows an offline page without the
// network, and it shows the Web Push notifications of runs that wait (docs/push.md). Tapping one
// opens the run's waiting form: in a console window that is open, or a new one. The API (/v1/*)
// is never cached.
/// <reference lib="webworker" />
import type { PushPayload } from "../../src/client";

declare const self: ServiceWorkerGlobalScope;
/** A digest of the shell's files, written by the build: a new console is a new cache. */
declare const SHELL_VERSION: string;

const CACHE = `ratchet-console-${SHELL_VERSION}`;
const SHELL = ["./", "console.js", "console.css", "manifest.webmanifest", "icon-192.png", "icon-512.png", "offline.html"];
const scope = new URL(self.registration.scope);

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await cache.addAll(SHELL.map((path) => new URL(path, scope).href));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name.startsWith("ratchet-console-") && name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

/** The network first (a deployment's newest console), the cache when there is no network; a page falls back to the offline page. */
async function fromNetworkOrShell(request: Request): Promise<Response> {
  try {
    const response = await fetch(request);
    if (response.ok && request.mode !== "navigate") {
      const copy = response.clone();
      void caches.open(CACHE).then((cache) => cache.put(request, copy));
    }
    return response;
  } catch (error) {
    const cached = await caches.match(request, { ignoreSearch: true });
    if (cached !== undefined && request.mode !== "navigate") return cached;
    if (request.mode === "navigate") {
      const offline = await caches.match(new URL("offline.html", scope).href);
      // A copy: the cached answer may have come through a redirect (/offline.html → /offline), which a navigation may not be answered with.
      if (offline !== undefined) return new Response(await offline.blob(), { status: 200, headers: { "Content-Type": "text/html; charset=utf-8" } });
    }
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  // Only the console's own files: the API, other origins and anything not a GET pass straight through.
  if (event.request.method !== "GET" || url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return;
  event.respondWith(fromNetworkOrShell(event.request));
});

const TITLES: Record<PushPayload["kind"], string> = {
  "run.waiting": "A run is waiting for you",
  "run.finished": "A run finished",
  "run.failed": "A run failed",
};

/** The payload, or undefined when the push carries none this worker understands. */
function payloadOf(event: PushEvent): PushPayload | undefined {
  try {
    const value = event.data?.json() as Partial<PushPayload> | undefined;
    return typeof value?.runId === "string" && typeof value.kind === "string" && value.kind in TITLES ? (value as PushPayload) : undefined;
  } catch {
    return undefined;
  }
}

/** Where a notification leads: its run's page on this console (never another origin). */
function pageOf(payload: Pick<PushPayload, "runId" | "url">): string {
  try {
    const url = new URL(payload.url);
    if (url.origin === scope.origin && url.pathname.startsWith(scope.pathname)) return url.href;
  } catch {
    // Not a URL: the console's own page of the run.
  }
  return `${scope.href}#${encodeURIComponent(payload.runId)}`;
}

self.addEventListener("push", (event) => {
  const payload = payloadOf(event);
  if (payload === undefined) return;
  event.waitUntil(
    self.registration.showNotification(payload.title ?? TITLES[payload.kind], {
      body: payload.title === undefined ? payload.question : `${TITLES[payload.kind]}: ${payload.question}`,
      // One notification a run: a newer push about it replaces the older one.
      tag: payload.runId,
      icon: new URL("icon-192.png", scope).href,
      data: { runId: payload.runId, url: pageOf(payload) },
      requireInteraction: payload.kind === "run.waiting",
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const data = event.notification.data as { runId?: unknown; url?: unknown } | null;
  if (typeof data?.runId !== "string") return;
  const runId = data.runId;
  const url = pageOf({ runId, url: typeof data.url === "string" ? data.url : "" });
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const open = windows.find((client) => client.url.startsWith(scope.href));
      if (open === undefined) {
        await self.clients.openWindow(url);
        return;
      }
      // The console that is open shows the run (main.ts listens), and comes to the front.
      open.postMessage({ type: "ratchet:open-run", runId });
      await open.focus().catch(() => undefined);
    })(),
  );
});
