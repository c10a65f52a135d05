import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError } from "./config-error.js";
import { parseSettings, prefixedSources } from "./parse-settings.js";

const Schema = z.object({
  port: z.coerce.number().int().min(0, "must be 0 to 65535").max(65_535, "must be 0 to 65535"),
  adminToken: z.string().min(16, "must be at least 16 characters"),
  secrets: z.array(z.string().startsWith("whsec_", "must start with whsec_")),
});

describe("parseSettings", () => {
  it("returns the typed settings", () => {
    expect(
      parseSettings(
        Schema,
        { port: "80", adminToken: "0123456789abcdef", secrets: [] },
        prefixedSources("APP_"),
      ),
    ).toEqual({ port: 80, adminToken: "0123456789abcdef", secrets: [] });
  });

  it("reports every problem in one ConfigError naming flag, variable and list position, never a value", () => {
    let error: unknown;
    try {
      parseSettings(
        Schema,
        { port: "70000", adminToken: "hunter2", secrets: ["whsec_ok", "plain-secret"] },
        prefixedSources("APP_"),
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe("ERR_INVALID_CONFIG");
    expect((error as ConfigError).problems).toEqual([
      "--port (APP_PORT): must be 0 to 65535",
      "--admin-token (APP_ADMIN_TOKEN): must be at least 16 characters",
      "--secrets (APP_SECRETS) (value 2): must start with whsec_",
    ]);
    expect((error as Error).message).toMatch(/^Invalid configuration:\n {2}--port/);
    expect((error as Error).message).not.toMatch(/hunter2|plain-secret/);
  });

  it("uses the app's own names where they follow no rule", () => {
    const sources = { tokens: { flag: "--token", env: "RECEIVER_TOKENS" } };
    expect(() =>
      parseSettings(
        z.object({ tokens: z.array(z.string()).min(1, "at least one") }),
        { tokens: [] },
        (key) => (key === "tokens" ? sources.tokens : undefined),
      ),
    ).toThrow(expect.objectContaining({ problems: ["--token (RECEIVER_TOKENS): at least one"] }));
  });
});
