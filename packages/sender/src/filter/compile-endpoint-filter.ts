import { celEnv, parse, plan } from "@bufbuild/cel";
import { MAX_ENDPOINT_FILTER_LENGTH } from "@plant-store/types";
import { type FilterPosition, InvalidEndpointFilterError } from "../errors.js";

/** What a filter sees of a message: its event type (null when it has none) and its payload as JSON. */
export interface FilterInput {
  eventType: string | null;
  payload: unknown;
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
function checkExpression(parsed: ParsedExpr, source: string): void {
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
 * Checks a filter and plans it, or throws `InvalidEndpointFilterError` naming the problem and where it
 * is: over `MAX_ENDPOINT_FILTER_LENGTH` characters, a syntax error, an unknown function or variable, a
 * loop (`checkExpression`). `@bufbuild/cel` parses and runs it (never `eval`, no parser of our own).
 *
 * Types are not checked against the event types' payload schemas: `@bufbuild/cel` 0.6 keeps its type
 * checker out of its public API, so a comparison of a declared field with a value of another type
 * (`payload.id == "x"`) is accepted, and is false for every message.
 */
export function compileEndpointFilter(source: string): CompiledFilter {
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
  checkExpression(parsed, source);
  let run: ReturnType<typeof plan>;
  try {
    run = plan(env, parsed);
  } catch (error) {
    throw new InvalidEndpointFilterError((error as Error).message);
  }
  return {
    source,
    matches(input) {
      try {
        return run({ eventType: input.eventType, payload: input.payload as never }) === true;
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
