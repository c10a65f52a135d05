import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import { isObject, type JsonObject } from "./resolve-ref.js";

/**
 * An OpenAPI document read from a file: YAML for `.yaml` and `.yml`, JSON otherwise (JSON is YAML
 * too, so a `.yaml` holding JSON reads as well). Throws with the file and the parser's reason.
 */
export async function loadWebhookDocument(path: string): Promise<JsonObject> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new TypeError(`cannot read ${path} (${typeof code === "string" ? code : "unreadable"})`);
  }
  let document: unknown;
  try {
    document = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new TypeError(
      `${path} is not ${/\.ya?ml$/i.test(path) ? "YAML" : "JSON"}: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  if (!isObject(document)) throw new TypeError(`${path} does not hold an OpenAPI document (an object)`);
  return document;
}
