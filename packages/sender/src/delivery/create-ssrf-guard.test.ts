import { lookup } from "node:dns/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SsrfBlockedError } from "../errors.js";
import { createSsrfGuard } from "./create-ssrf-guard.js";

const resolveTo =
  (...addresses: string[]) =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(":") ? (6 as const) : (4 as const) }));

describe("createSsrfGuard", () => {
  it("returns the public address to pin the connection to", async () => {
    const guard = createSsrfGuard({ resolve: resolveTo("93.184.216.34") });
    expect(await guard.check("https://hooks.example/plant/webhook")).toEqual({
      address: "93.184.216.34",
      family: 4,
    });
  });

  it("resolves a name again at every check of the same URL: a rebound name is refused the next time", async () => {
    const answers = ["93.184.216.34", "169.254.169.254"];
    const guard = createSsrfGuard({
      resolve: async () => [{ address: answers.shift() ?? "none", family: 4 as const }],
    });
    const url = "https://hooks.example/plant/webhook";
    expect(await guard.check(url)).toEqual({ address: "93.184.216.34", family: 4 });
    await expect(guard.check(url)).rejects.toBeInstanceOf(SsrfBlockedError);
  });

  it("refuses a name with any non-public address, including the metadata address", async () => {
    for (const address of ["169.254.169.254", "10.0.0.5", "::1"]) {
      const guard = createSsrfGuard({ resolve: resolveTo("93.184.216.34", address) });
      await expect(guard.check("https://hooks.example/")).rejects.toMatchObject({ code: "ERR_SSRF_BLOCKED" });
    }
  });

  it("refuses literal private addresses and non-http schemes", async () => {
    const guard = createSsrfGuard();
    await expect(guard.check("http://127.0.0.1:8080/")).rejects.toMatchObject({ code: "ERR_SSRF_BLOCKED" });
    await expect(guard.check("http://[::ffff:192.168.0.1]/")).rejects.toMatchObject({
      code: "ERR_SSRF_BLOCKED",
    });
    await expect(guard.check("file:///etc/passwd")).rejects.toMatchObject({ code: "ERR_SSRF_BLOCKED" });
  });

  it("refuses every loopback, private, link-local, mapped and unspecified literal, and localhost", async () => {
    const guard = createSsrfGuard();
    for (const host of [
      "127.0.0.1",
      "[::1]",
      "10.0.0.1",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "[::ffff:127.0.0.1]",
      "[::ffff:a9fe:a9fe]",
      "0.0.0.0",
      "[::]",
      // IPv4-compatible forms of loopback and the metadata address (::/96).
      "[::127.0.0.1]",
      "[::7f00:1]",
      "[::a9fe:a9fe]",
      "100.64.0.1",
      "[fd00::1]",
      "[fe80::1]",
      // A name: resolved for real from the hosts file, to loopback.
      "localhost",
    ]) {
      await expect(guard.check(`http://${host}:8080/plant/webhook`), host).rejects.toMatchObject({
        code: "ERR_SSRF_BLOCKED",
      });
    }
  });

  it("allows private targets when told to", async () => {
    const guard = createSsrfGuard({ allowPrivateTargets: true });
    expect(await guard.check("http://127.0.0.1:8080/")).toEqual({ address: "127.0.0.1", family: 4 });
  });

  it("lets through exactly the URLs isTrustedTarget accepts, private or not, and still refuses the rest", async () => {
    const seen: string[] = [];
    const guard = createSsrfGuard({
      isTrustedTarget: (url) => {
        seen.push(url.href);
        return url.origin === "http://127.0.0.1:8780" && url.pathname.startsWith("/relay/");
      },
    });
    expect(await guard.check("http://127.0.0.1:8780/relay/lst_1")).toEqual({
      address: "127.0.0.1",
      family: 4,
    });
    for (const url of [
      "http://127.0.0.1:8780/endpoints",
      "http://127.0.0.1:8781/relay/lst_1",
      "http://10.0.0.1:8780/relay/lst_1",
    ])
      await expect(guard.check(url), url).rejects.toBeInstanceOf(SsrfBlockedError);
    // Handed the parsed URL of each check, never asked about a scheme refused before it.
    await expect(guard.check("file:///etc/passwd")).rejects.toBeInstanceOf(SsrfBlockedError);
    expect(seen).toStrictEqual([
      "http://127.0.0.1:8780/relay/lst_1",
      "http://127.0.0.1:8780/endpoints",
      "http://127.0.0.1:8781/relay/lst_1",
      "http://10.0.0.1:8780/relay/lst_1",
    ]);
  });

  it("decides per endpoint when told a function: private targets for one owner, an exception for one endpoint id", async () => {
    const asked: unknown[] = [];
    const guard = createSsrfGuard({
      // Subscribers only (the operator's endpoints have subscriberId null).
      allowPrivateTargets: (endpoint) => {
        asked.push(endpoint);
        return endpoint !== undefined && endpoint.subscriberId !== null;
      },
      isTrustedTarget: (_url, endpoint) => endpoint?.id === 7 && endpoint.subscriberId === null,
    });
    const loopback = "http://127.0.0.1:8780/relay/lst_1";
    expect(await guard.check(loopback, { endpoint: { id: 3, subscriberId: 2 } })).toEqual({
      address: "127.0.0.1",
      family: 4,
    });
    expect(await guard.check(loopback, { endpoint: { id: 7, subscriberId: null } })).toEqual({
      address: "127.0.0.1",
      family: 4,
    });
    for (const endpoint of [{ id: 8, subscriberId: null }, { subscriberId: null }, undefined])
      await expect(
        guard.check(loopback, endpoint ? { endpoint } : {}),
        JSON.stringify(endpoint),
      ).rejects.toBeInstanceOf(SsrfBlockedError);
    expect(asked).toStrictEqual([
      { id: 3, subscriberId: 2 },
      { id: 7, subscriberId: null },
      { id: 8, subscriberId: null },
      { subscriberId: null },
      undefined,
    ]);
  });

  it("gives up on a name that does not resolve in time with ERR_DNS_TIMEOUT", async () => {
    const hanging = createSsrfGuard({ resolve: () => new Promise(() => undefined) });
    const outcome = await Promise.race([
      hanging.check("https://hooks.example/", { timeoutMs: 50 }).then(
        () => "resolved",
        (error: { code?: string }) => error.code,
      ),
      new Promise((resolve) => setTimeout(() => resolve("still waiting"), 5000)),
    ]);
    expect(outcome).toBe("ERR_DNS_TIMEOUT");
    const byDefault = createSsrfGuard({ resolve: () => new Promise(() => undefined), lookupTimeoutMs: 50 });
    await expect(byDefault.check("https://hooks.example/")).rejects.toMatchObject({
      code: "ERR_DNS_TIMEOUT",
    });
  });

  describe("what the mutation tests found untested", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it("refuses every scheme but http and https, even to a public address", async () => {
      const guard = createSsrfGuard({ resolve: resolveTo("93.184.216.34") });
      for (const url of ["ftp://93.184.216.34/", "gopher://hooks.example/", "ws://hooks.example/"]) {
        const scheme = new URL(url).protocol;
        await expect(guard.check(url), url).rejects.toMatchObject({
          code: "ERR_SSRF_BLOCKED",
          message: `Refusing a ${scheme} target: only http and https are delivered to`,
        });
      }
      expect(await guard.check("http://hooks.example/")).toEqual({ address: "93.184.216.34", family: 4 });
      expect(await guard.check("https://hooks.example/")).toEqual({ address: "93.184.216.34", family: 4 });
    });

    it("refuses a name that resolves to no address", async () => {
      const guard = createSsrfGuard({ resolve: resolveTo(), allowPrivateTargets: true });
      await expect(guard.check("https://hooks.example/")).rejects.toMatchObject({
        code: "ERR_SSRF_BLOCKED",
        message: "hooks.example resolved to no address",
      });
    });

    it("names the non-public address it refused", async () => {
      const guard = createSsrfGuard({ resolve: resolveTo("93.184.216.34", "10.0.0.5") });
      await expect(guard.check("https://hooks.example/")).rejects.toMatchObject({
        message: "hooks.example resolves to a non-public address (10.0.0.5)",
      });
    });

    it("connects to an IP literal as written, without resolving it", async () => {
      const guard = createSsrfGuard({
        resolve: () => Promise.reject(new Error("an IP literal was handed to the resolver")),
      });
      expect(await guard.check("https://[2606:4700::1111]:8443/")).toEqual({
        address: "2606:4700::1111",
        family: 6,
      });
      expect(await guard.check("https://93.184.216.34/")).toEqual({ address: "93.184.216.34", family: 4 });
      const open = createSsrfGuard({ allowPrivateTargets: true });
      expect(await open.check("http://[::1]:8080/")).toEqual({ address: "::1", family: 6 });
    });

    it("by default resolves with the system resolver, first address first", async () => {
      const guard = createSsrfGuard({ allowPrivateTargets: true });
      const [first] = await lookup("localhost", { all: true });
      expect(first).toBeDefined();
      expect(await guard.check("http://localhost:8080/")).toEqual({
        address: first?.address,
        family: first?.family,
      });
    });

    it("says which name timed out, and after how long", async () => {
      const guard = createSsrfGuard({ resolve: () => new Promise(() => undefined) });
      await expect(guard.check("https://slow.example/", { timeoutMs: 30 })).rejects.toMatchObject({
        code: "ERR_DNS_TIMEOUT",
        message: "slow.example did not resolve within 30 ms",
      });
    });

    it("leaves no timer behind once the name has resolved", async () => {
      vi.useFakeTimers();
      const guard = createSsrfGuard({ resolve: resolveTo("93.184.216.34") });
      await guard.check("https://hooks.example/");
      // A timer left running would hold the process open for up to 15 s after the last delivery.
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});
