import { generateWebhookKeyPair } from "@plant-store/types";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./load-config.js";

const secret = `whsec_${Buffer.alloc(24, 7).toString("base64")}`;

describe("loadConfig", () => {
  it("applies the demo defaults", () => {
    expect(loadConfig({ token: ["t"], secret: [secret] })).toEqual({
      port: 8781,
      host: "127.0.0.1",
      tokens: ["t"],
      secrets: [secret],
      readTokens: [],
      db: "./data/receiver.db",
      logLevel: "info",
      headersTimeoutMs: 10_000,
      bodyTimeoutMs: 15_000,
      requestTimeoutMs: 30_000,
      dbBusyTimeoutMs: 5000,
      maxEventStreams: 100,
      maxEventStreamsPerClient: 10,
      catchUpEveryMs: 60_000,
    });
  });

  it("takes the catch-up's events URL and token together, and how often (default 1m)", () => {
    const url = "https://store.example/endpoints/7/events";
    expect(
      loadConfig({
        token: ["t"],
        secret: [secret],
        catchUpFrom: url,
        catchUpToken: "t",
        catchUpEvery: "30s",
      }),
    ).toMatchObject({ catchUpFrom: url, catchUpToken: "t", catchUpEveryMs: 30_000 });
    const problems = (raw: Parameters<typeof loadConfig>[0]) => {
      try {
        loadConfig(raw);
      } catch (error) {
        return (error as ConfigError).problems;
      }
      return [];
    };
    expect(problems({ token: ["t"], secret: [secret], catchUpFrom: url })).toEqual([
      "--catch-up-token (PLANT_RECEIVER_CATCH_UP_TOKEN): --catch-up-from and --catch-up-token go together: the events URL and the credential it takes",
    ]);
    expect(problems({ token: ["t"], secret: [secret], catchUpToken: "t" })).toHaveLength(1);
    expect(
      problems({
        token: ["t"],
        secret: [secret],
        catchUpFrom: "ftp://store/e",
        catchUpToken: "t",
        catchUpEvery: "1ms",
      }),
    ).toEqual([
      expect.stringMatching(/^--catch-up-from \(PLANT_RECEIVER_CATCH_UP_FROM\): must be an http\(s\) URL/),
      expect.stringMatching(/^--catch-up-every \(PLANT_RECEIVER_CATCH_UP_EVERY\): must be at least/),
    ]);
  });

  it("takes timeouts in milliseconds and refuses a headers timeout longer than the request timeout", () => {
    const config = loadConfig({
      token: ["t"],
      secret: [secret],
      headersTimeout: "200",
      bodyTimeout: "300",
      requestTimeout: "400",
      dbBusyTimeout: "50",
    });
    expect(config).toMatchObject({
      headersTimeoutMs: 200,
      bodyTimeoutMs: 300,
      requestTimeoutMs: 400,
      dbBusyTimeoutMs: 50,
    });
    expect(() =>
      loadConfig({
        token: ["t"],
        secret: [secret],
        headersTimeout: "500",
        requestTimeout: "400",
        bodyTimeout: "0",
      }),
    ).toThrow(
      expect.objectContaining({
        problems: [
          "--body-timeout (PLANT_RECEIVER_BODY_TIMEOUT_MS): must be at least 1ms",
          "--headers-timeout (PLANT_RECEIVER_HEADERS_TIMEOUT_MS): must not be longer than --request-timeout",
        ],
      }),
    );
  });

  it("takes whpk_ public keys (v1a) beside whsec_ secrets, and refuses a whsk_ signing key", () => {
    const { signingKey, publicKey } = generateWebhookKeyPair();
    expect(loadConfig({ token: ["t"], secret: [secret, publicKey] }).secrets).toEqual([secret, publicKey]);
    expect(() => loadConfig({ token: ["t"], secret: [signingKey] })).toThrow(ConfigError);
  });

  it("splits comma-separated lists (from env vars) and merges repeated flags", () => {
    const config = loadConfig({ token: ["a,b", " c "], secret: [`${secret},${secret}`], port: "0" });
    expect(config.tokens).toEqual(["a", "b", "c"]);
    expect(config.secrets).toHaveLength(2);
    expect(config.port).toBe(0);
  });

  it("reports every problem at once, naming flag and env var, never the values", () => {
    let error: unknown;
    try {
      loadConfig({
        port: "70000",
        host: " ",
        token: [],
        secret: ["whsec_short", secret],
        logLevel: "loud",
        db: "",
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems, message } = error as ConfigError;
    expect(problems).toEqual([
      "--port (PLANT_RECEIVER_PORT): must be 0 to 65535",
      "--host (PLANT_RECEIVER_HOST): must not be empty",
      "--token (PLANT_RECEIVER_TOKENS): at least one bearer token is required",
      "--secret (PLANT_RECEIVER_SECRETS) (value 1): must be whsec_ followed by base64 of at least 16 bytes, or a whpk_ ed25519 public key",
      "--db (PLANT_RECEIVER_DB): must not be empty",
      expect.stringMatching(/^--log-level \(PLANT_RECEIVER_LOG_LEVEL\): must be one of fatal, error/),
    ]);
    expect(message).not.toContain("whsec_short");
  });

  it("reads read tokens (repeatable, comma-separated) and the event-stream caps", () => {
    const config = loadConfig({
      token: ["t"],
      secret: [secret],
      readToken: ["read-token-one-0001,read-token-two-0002", "read-token-three-003"],
      maxEventStreams: "50",
      maxEventStreamsPerClient: "5",
    });
    expect(config).toMatchObject({
      readTokens: ["read-token-one-0001", "read-token-two-0002", "read-token-three-003"],
      maxEventStreams: 50,
      maxEventStreamsPerClient: 5,
    });
    expect(() =>
      loadConfig({
        token: ["t"],
        secret: [secret],
        readToken: ["has space in a long read token", "x"],
        maxEventStreams: "0",
      }),
    ).toThrow(
      expect.objectContaining({
        problems: [
          "--read-token (PLANT_RECEIVER_READ_TOKENS) (value 1): must be printable ASCII without spaces",
          // A 1-character read token was taken without a word: guessed in moments, throttle or not.
          "--read-token (PLANT_RECEIVER_READ_TOKENS) (value 2): must be at least 16 characters",
          "--max-event-streams (PLANT_RECEIVER_MAX_EVENT_STREAMS): must be at least 1",
        ],
      }),
    );
  });
});
