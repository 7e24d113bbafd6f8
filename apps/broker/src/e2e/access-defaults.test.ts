// Access defaults (issue 17 item 15): with a password file, a client that sends no user name does
// not skip the password; tested over a real socket, with a bystander that logs in properly.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hashPassword } from "../auth/index.js";
import { roundTrip } from "./bystander.test-helpers.js";
import { serverFixture } from "./server-harness.test-helpers.js";

const fx = serverFixture();

describe("access defaults", () => {
  it("with a password file and no allowAnonymous, a client without a user name gets CONNACK 0x87", async () => {
    const hash = await hashPassword("s3cret", { N: 1024, r: 8, p: 1 });
    const s = await fx.start((d) => ["--password-file", join(d, "passwords")], { passwords: `alice:${hash}\n` });
    const url = `mqtt://127.0.0.1:${String(s.ports.mqtt ?? 0)}`;
    await expect(fx.connect(url, { clientId: "anon" })).rejects.toMatchObject({ code: 0x87 });
    await expect(fx.connect(url, { clientId: "anon-311", protocolVersion: 4 })).rejects.toMatchObject({ code: 5 });
    await roundTrip(await fx.connect(url, { username: "alice", password: "s3cret" }));
  });

  it("with a password file and allowAnonymous on, a client without a user name is admitted", async () => {
    const hash = await hashPassword("s3cret", { N: 1024, r: 8, p: 1 });
    const s = await fx.start((d) => ["--password-file", join(d, "passwords"), "--allow-anonymous", "true"], { passwords: `alice:${hash}\n` });
    await roundTrip(await fx.connect(`mqtt://127.0.0.1:${String(s.ports.mqtt ?? 0)}`, { clientId: "anon" }));
  });
});
