import { type CelInput, celEnv, celList, celMap, parse, plan } from "@bufbuild/cel";
import { MAX_ENDPOINT_FILTER_LENGTH } from "@plant-store/types";
import { type FilterPosition, InvalidEndpointFilterError } from "../errors.js";

/**
 * What a filter sees of a message: its event type (null when it has none) and its payload as parsed
 * JSON, best made once per message with `toFilterInput`.
 */
export interface FilterInput {
  eventType: string | null;
  payload: unknown;
}

/** A name a select may spell without quoting: the only map keys `payload.a.b` can reach. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Where `toFilterInput` keeps a message's variables as `@bufbuild/cel` looks them up first: every path of
 * plain field names (`payload.name`, `payload.care.light`) bound to its value, beside `eventType` and
 * `payload`. For `payload.tag`, the planner tries the qualified name `payload.tag` as a variable, then as
 * a type or enum name in its registry, and only then `payload` and its key `tag`: answered by the first
 * try, an evaluation takes about half the time (2.1 against 1.1 µs for a three-part filter).
 */
const BY_PATH = Symbol("filter variables by path");

interface PreparedInput extends FilterInput {
  readonly [BY_PATH]: Record<string, unknown>;
}

/**
 * Parsed JSON as CEL's own lists and maps (`celList`, `celMap` over a `Map`): `@bufbuild/cel` takes
 * them as they are, where a plain array or `Map` is wrapped again at every access of every evaluation.
 * Each map reached through plain field names from the payload has its fields put in `byPath` as well.
 */
function toCelValue(value: unknown, path: string | undefined, byPath: Record<string, unknown>): CelInput {
  if (Array.isArray(value)) return celList(value.map((element) => toCelValue(element, undefined, byPath)));
  if (value !== null && typeof value === "object") {
    const fields = new Map<string, CelInput>();
    for (const [key, field] of Object.entries(value)) {
      const at = path !== undefined && IDENTIFIER.test(key) ? `${path}.${key}` : undefined;
      const converted = toCelValue(field, at, byPath);
      fields.set(key, converted);
      if (at !== undefined) byPath[at] = converted;
    }
    return celMap(fields);
  }
  return value as CelInput;
}

/**
 * A message's input to every filter, made once: its objects and arrays become CEL maps and lists (a
 * plain object is read too, by reflection at every access, about twice as slowly; a `Map` is wrapped
 * at every access, about 10 % slower per evaluation), and its field paths are bound as `@bufbuild/cel`
 * looks them up first (`BY_PATH`).
 */
export function toFilterInput(eventType: string | null, payload: unknown): FilterInput {
  const byPath: Record<string, unknown> = Object.create(null);
  const converted = toCelValue(payload, "payload", byPath);
  byPath.eventType = eventType;
  byPath.payload = converted;
  const input: PreparedInput = { eventType, payload: converted, [BY_PATH]: byPath };
  return input;
}

/** A filter checked and planned once, run for every message. */
export interface CompiledFilter {
  readonly source: string;
  /**
   * Whether the message passes: the expression gave `true`. An error (a field the payload lacks, a
   * wrong type at run time) or any other value excludes it, as CEL's own `false` would.
   */
  matches(input: FilterInput): boolean;
}

/** The variables a filter may name. */
const VARIABLES = new Set(["eventType", "payload"]);

/**
 * Functions the planner itself runs rather than looks up (logic, the conditional, indexing): CEL's
 * operator names, as `@bufbuild/cel`'s parser writes them.
 */
const BUILT_IN_CALLS = new Set([
  "_&&_",
  "_||_",
  "_?_:_",
  "_[_]",
  "_[?_]",
  "_?._",
  "@not_strictly_false",
  "__not_strictly_false__",
]);

/** The comparisons whose operands' types are checked against a declared payload (`checkComparison`). */
const COMPARISONS = new Set(["_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"]);

/** What a filter may be checked against: the payload schemas of the event types its endpoint lists. */
export interface FilterCheckOptions {
  /**
   * The payload schemas (zod, as a `WebhookCatalog` holds them) of every event type the endpoint
   * receives; a comparison of a field every one of them declares with a constant of a type none of them
   * gives it is refused. Absent or empty: no such check (an endpoint without a list, or no catalog).
   */
  payloadSchemas?: readonly unknown[];
}

type Kind = "string" | "number" | "bool";

/** A zod schema's definition, as much of it as the check reads (zod 4's `def`). */
interface SchemaDef {
  type?: string;
  shape?: Record<string, { def?: SchemaDef }>;
  innerType?: { def?: SchemaDef };
  in?: { def?: SchemaDef };
  options?: Array<{ def?: SchemaDef }>;
}

/**
 * The kinds a field at `path` may have in a schema; undefined when the schema does not say (an
 * unknown field, `any`, a shape the check does not read): no verdict then.
 */
function kindsAt(schema: unknown, path: readonly string[]): Set<Kind> | undefined {
  const def = (schema as { def?: SchemaDef } | undefined)?.def;
  if (def === undefined) return undefined;
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "readonly":
    case "catch":
      return kindsAt(def.innerType, path);
    case "pipe":
      return kindsAt(def.in, path);
    case "union": {
      const kinds = new Set<Kind>();
      for (const option of def.options ?? []) {
        const found = kindsAt(option, path);
        if (found === undefined) return undefined;
        for (const kind of found) kinds.add(kind);
      }
      return kinds;
    }
    case "object": {
      const [head, ...rest] = path;
      if (head === undefined) return undefined;
      const field = def.shape?.[head];
      return field === undefined ? undefined : kindsAt(field, rest);
    }
    case "string":
    case "enum":
      return path.length === 0 ? new Set(["string"]) : undefined;
    case "number":
    case "int":
    case "bigint":
      return path.length === 0 ? new Set(["number"]) : undefined;
    case "boolean":
      return path.length === 0 ? new Set(["bool"]) : undefined;
    default:
      return undefined;
  }
}

/** The kind of a constant, or undefined for one any field may be compared with (null). */
function constantKind(expr: Expr): Kind | undefined {
  if (expr.exprKind.case !== "constExpr") return undefined;
  switch (expr.exprKind.value.constantKind.case) {
    case "stringValue":
      return "string";
    case "int64Value":
    case "uint64Value":
    case "doubleValue":
      return "number";
    case "boolValue":
      return "bool";
    default:
      return undefined;
  }
}

/** The field path of `payload.a.b` (a plain select chain from `payload`), or undefined. */
function payloadPath(expr: Expr): string[] | undefined {
  const path: string[] = [];
  let current: Expr | undefined = expr;
  while (current?.exprKind.case === "selectExpr") {
    if (current.exprKind.value.testOnly) return undefined;
    path.unshift(current.exprKind.value.field);
    current = current.exprKind.value.operand;
  }
  return current?.exprKind.case === "identExpr" &&
    current.exprKind.value.name === "payload" &&
    path.length > 0
    ? path
    : undefined;
}

/** The standard environment: CEL's standard functions only, no extensions. */
const env = celEnv();

type ParsedExpr = ReturnType<typeof parse>;
type Expr = ParsedExpr["expr"];

/** Where `offset` (0-based, in characters) is in `source`. */
function positionOf(source: string, offset: number): FilterPosition {
  const before = source.slice(0, offset);
  const line = before.split("\n").length;
  return { offset, line, column: offset - (before.lastIndexOf("\n") + 1) + 1 };
}

/**
 * Refuses what would fail on every message or could not be bounded, walking the parsed expression:
 * - a variable other than `eventType`, `payload` and a macro's own;
 * - a function the standard environment lacks (CEL would only say so when it runs, for every message);
 * - a loop: the macros that iterate (`all`, `exists`, `exists_one`, `map`, `filter`) are refused, so a
 *   filter's cost is bounded by its length times its payload's size (no loop runs once per element,
 *   nor one inside another). Membership is `"tropical" in payload.tags`.
 */
function checkExpression(parsed: ParsedExpr, source: string, payloadSchemas: readonly unknown[]): void {
  const positions = parsed.sourceInfo?.positions ?? {};
  const at = (expr: Expr) => {
    const offset = positions[String(expr.id)];
    return offset === undefined ? undefined : positionOf(source, offset);
  };
  const walk = (expr: Expr | undefined, scope: ReadonlySet<string>): void => {
    if (expr === undefined) return;
    const kind = expr.exprKind;
    switch (kind.case) {
      case "identExpr":
        if (!VARIABLES.has(kind.value.name) && !scope.has(kind.value.name))
          throw new InvalidEndpointFilterError(
            `unknown variable ${kind.value.name} (a filter sees eventType and payload)`,
            at(expr),
          );
        return;
      case "selectExpr":
        walk(kind.value.operand, scope);
        return;
      case "callExpr": {
        const call = kind.value;
        if (!BUILT_IN_CALLS.has(call.function) && env.funcs.find(call.function) === undefined)
          throw new InvalidEndpointFilterError(`unknown function ${call.function}`, at(expr));
        if (COMPARISONS.has(call.function) && payloadSchemas.length > 0 && call.args.length === 2) {
          const [left, right] = call.args as [Expr, Expr];
          for (const [field, constant] of [
            [left, right],
            [right, left],
          ] as const) {
            const path = payloadPath(field);
            const kind = constantKind(constant);
            if (path === undefined || kind === undefined) continue;
            const declared = payloadSchemas.map((schema) => kindsAt(schema, path));
            if (declared.some((kinds) => kinds === undefined || kinds.has(kind))) continue;
            const types = [...new Set(declared.flatMap((kinds) => [...(kinds ?? [])]))].join(" or ");
            throw new InvalidEndpointFilterError(
              `payload.${path.join(".")} is a ${types} in the payload schema of the event types this endpoint receives, compared with a ${kind}`,
              at(constant),
            );
          }
        }
        walk(call.target, scope);
        for (const arg of call.args) walk(arg, scope);
        return;
      }
      case "listExpr":
        for (const element of kind.value.elements) walk(element, scope);
        return;
      case "structExpr":
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === "mapKey") walk(entry.keyKind.value, scope);
          walk(entry.value, scope);
        }
        return;
      case "comprehensionExpr":
        // The range's position: where the macro's receiver starts, the nearest the source has.
        throw new InvalidEndpointFilterError(
          "macros that loop (all, exists, exists_one, map, filter) are refused: their cost grows with the payload; test membership with `in`",
          at(kind.value.iterRange ?? expr),
        );
      default:
        return;
    }
  };
  walk(parsed.expr, new Set());
}

/**
 * Whether every field the expression reads by name is a plain one (`payload.name`, `payload["name"]`),
 * none optional (`payload.?name`): then a prepared input's paths (`BY_PATH`) answer as the payload's maps
 * would. A key that is not an identifier (`payload["a.b"]`) would be looked up as the path `payload.a.b`,
 * and an optional one must be wrapped: such an expression reads the maps themselves.
 */
function readsPlainFields(expr: Expr | undefined): boolean {
  if (expr === undefined) return true;
  const kind = expr.exprKind;
  switch (kind.case) {
    case "selectExpr":
      return IDENTIFIER.test(kind.value.field) && readsPlainFields(kind.value.operand);
    case "callExpr": {
      const call = kind.value;
      if (call.function === "_[?_]" || call.function === "_?._") return false;
      if (call.function === "_[_]") {
        const key = call.args[1]?.exprKind;
        if (
          key?.case === "constExpr" &&
          key.value.constantKind.case === "stringValue" &&
          !IDENTIFIER.test(key.value.constantKind.value)
        )
          return false;
      }
      return readsPlainFields(call.target) && call.args.every(readsPlainFields);
    }
    case "listExpr":
      return kind.value.elements.every(readsPlainFields);
    case "structExpr":
      return kind.value.entries.every(
        (entry) =>
          (entry.keyKind.case !== "mapKey" || readsPlainFields(entry.keyKind.value)) &&
          readsPlainFields(entry.value),
      );
    case "comprehensionExpr":
      return false;
    default:
      return true;
  }
}

/**
 * Checks a filter and plans it, or throws `InvalidEndpointFilterError` naming the problem and where it
 * is: over `MAX_ENDPOINT_FILTER_LENGTH` characters, a syntax error, an unknown function or variable, a
 * loop (`checkExpression`). `@bufbuild/cel` parses and runs it (never `eval`, no parser of our own).
 *
 * Given the payload schemas of the event types the endpoint receives (`options.payloadSchemas`), a
 * comparison of a declared field with a constant of another type (`payload.id == "x"`, `id` a number) is
 * refused too. That check is ours, over the parsed expression, and narrow (a field of `payload` against
 * a literal): `@bufbuild/cel` 0.6 keeps its type checker out of its public API.
 */
export function compileEndpointFilter(source: string, options: FilterCheckOptions = {}): CompiledFilter {
  if (source.length === 0) throw new InvalidEndpointFilterError("must not be empty (null: no filter)");
  if (source.length > MAX_ENDPOINT_FILTER_LENGTH)
    throw new InvalidEndpointFilterError(
      `${source.length} characters, over the ${MAX_ENDPOINT_FILTER_LENGTH} a filter may have`,
    );
  let parsed: ParsedExpr;
  try {
    parsed = parse(source);
  } catch (error) {
    const { location, rawMessage, message } = error as {
      location?: { start?: { offset?: number } };
      rawMessage?: string;
      message?: string;
    };
    const offset = location?.start?.offset;
    throw new InvalidEndpointFilterError(
      `syntax error: ${rawMessage ?? message ?? "not a CEL expression"}`,
      offset === undefined ? undefined : positionOf(source, offset),
    );
  }
  checkExpression(parsed, source, options.payloadSchemas ?? []);
  let run: ReturnType<typeof plan>;
  try {
    run = plan(env, parsed);
  } catch (error) {
    throw new InvalidEndpointFilterError((error as Error).message);
  }
  const byPathReads = readsPlainFields(parsed.expr);
  return {
    source,
    matches(input) {
      try {
        const byPath = byPathReads ? (input as Partial<PreparedInput>)[BY_PATH] : undefined;
        // A copy of a prepared input with another event type or payload (`{ ...input, eventType }`)
        // carries the original's paths: read those only while they are still its own.
        const variables =
          byPath !== undefined && byPath.eventType === input.eventType && byPath.payload === input.payload
            ? byPath
            : { eventType: input.eventType, payload: input.payload };
        return run(variables as never) === true;
      } catch {
        // A value the evaluator cannot take throws rather than answering an error: excluded all the same.
        return false;
      }
    },
  };
}

/** Most compiled filters kept (each a few kB): past it the oldest is dropped and compiled again when needed. */
const MAX_CACHED = 1000;
const cache = new Map<string, CompiledFilter>();

/**
 * The compiled filter for `source`, compiled once per process however many endpoints and messages share
 * it. Only for filters checked when they were stored: throws like `compileEndpointFilter` otherwise.
 */
export function compiledFilter(source: string): CompiledFilter {
  const found = cache.get(source);
  if (found) return found;
  const compiled = compileEndpointFilter(source);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(source, compiled);
  return compiled;
}
