// The dashboard in a real headless Chromium (Debian's, driven with playwright-core) against a whole
// server, with real MQTT.js clients making traffic: live numbers, the clients table and its kick
// button, the retained topic tree, and the subscription tester over MQTT-over-WebSocket.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findChromium } from "@handoff/app-kit/testing";
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import type { IDisconnectPacket } from "mqtt";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { serverFixture } from "./server-harness.test-helpers.js";

const TOKEN = "dashboard-e2e-token-0123456789";

const executablePath = findChromium();
if (executablePath === undefined) {
  console.warn("dashboard e2e skipped: no chromium found (install Debian's chromium, or set HANDOFF_CHROMIUM)");
}

const fx = serverFixture();
let browser: Browser | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await browser?.close();
  browser = undefined;
});

const text = (page: Page, selector: string): Promise<string> => page.locator(selector).innerText();

describe.skipIf(executablePath === undefined)("the dashboard in headless Chromium", () => {
  it("shows live numbers, the clients, the retained tree and messages the tester receives; kicks from the table; screenshots", async () => {
    const server = await fx.start(["--admin-token", TOKEN]);
    const mqttUrl = `mqtt://127.0.0.1:${String(server.ports.mqtt ?? 0)}`;
    const publisher = await fx.connect(mqttUrl, { clientId: "dash-publisher" });
    const victim = await fx.connect(mqttUrl, { clientId: "dash-victim" });
    await publisher.publishAsync("plant/line1/temp", "21.5", { qos: 1, retain: true });
    // Steady traffic, so two samples of the counters a second apart give a rate above 0.
    const traffic = setInterval(() => {
      publisher.publish("plant/line1/count", "tick", { qos: 0 });
    }, 50);
    cleanups.push(() => {
      clearInterval(traffic);
    });

    browser = await chromium.launch({ ...(executablePath === undefined ? {} : { executablePath }), headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"], timeout: WAIT_LIMIT_MS });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(WAIT_LIMIT_MS);
    const pageErrors: string[] = [];
    page.on("pageerror", (err) => pageErrors.push(err.message));
    await page.goto(`http://127.0.0.1:${String(server.ports.http ?? 0)}/dashboard`);

    // The page holds no data: it asks for the token first.
    expect([await page.locator("#login").isVisible(), await page.locator("#main").isVisible()]).toEqual([true, false]);
    await page.fill("#token", TOKEN);
    await page.click("#login-form button[type=submit]");

    // Waited for by their text (the page's CSP refuses evaluated strings): at least one
    // connection, and a rate above 0.0 msg/s.
    await page.locator("#connections", { hasText: /^[1-9]\d*$/ }).waitFor();
    await page.locator("#rate-in", { hasText: /^(?:[1-9]\d*\.\d|0\.[1-9])$/ }).waitFor();
    await page.locator('#clients-body tr[data-client-id="dash-publisher"]').waitFor();
    await page.locator('#retained-tree li[data-topic="plant/line1/temp"]').waitFor();
    const connections = Number(await text(page, "#connections"));
    const rateIn = Number(await text(page, "#rate-in"));
    const row = await text(page, '#clients-body tr[data-client-id="dash-publisher"]');
    const leaf = await text(page, '#retained-tree li[data-topic="plant/line1/temp"]');

    // The subscription tester: MQTT over WebSocket from the page, at the port the stats tell it.
    await page.fill("#tester-filter", "plant/#");
    await page.click("#tester-subscribe");
    await page.locator("#tester-status", { hasText: /^subscribed to plant\/#/ }).waitFor();
    await publisher.publishAsync("plant/hello", "from mqtt.js", { qos: 1 });
    await page.locator("#tester-messages li", { hasText: "from mqtt.js" }).waitFor();
    const testerRetained = await page.locator("#tester-messages li", { hasText: "21.5" }).innerText();

    // The kick button: the MQTT 5 client gets DISCONNECT 0x98.
    const kicked = new Promise<IDisconnectPacket>((resolve) => victim.once("disconnect", resolve));
    await page.click('#clients-body tr[data-client-id="dash-victim"] button.kick');
    const reasonCode = (await kicked).reasonCode;
    await page.locator('#clients-body tr[data-client-id="dash-victim"]').waitFor({ state: "detached" });

    const dir = mkdtempSync(join(tmpdir(), "handoff-dashboard-"));
    cleanups.push(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    const file = join(dir, "dashboard.png");
    await page.screenshot({ path: file, fullPage: true });
    const png = readFileSync(file);

    // The token stays for the tab: a reload goes straight to the numbers.
    await page.reload();
    await page.locator('#clients-body tr[data-client-id="dash-publisher"]').waitFor();

    expect(connections).toBeGreaterThanOrEqual(1);
    expect(rateIn).toBeGreaterThan(0);
    expect(row).toContain("MQTT 5.0");
    expect(leaf).toContain("21.5");
    expect(testerRetained).toContain("retained");
    expect(reasonCode).toBe(0x98);
    expect([png.subarray(0, 8).toString("hex"), png.byteLength > 10_000, pageErrors]).toEqual(["89504e470d0a1a0a", true, []]);
  });
});
