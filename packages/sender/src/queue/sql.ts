/** A value a statement can bind: both drivers take these as they are (no booleans, no Dates). */
export type SqlValue = string | number | bigint | null;

/** A column type a parameter is cast to where PostgreSQL cannot infer it (SQLite ignores it). */
export type SqlType = "bigint" | "int" | "text" | "bigint[]" | "int[]" | "text[]";

/** One bound parameter inside a statement. */
export interface SqlParam {
  readonly value: SqlValue | readonly SqlValue[];
  readonly type: SqlType | undefined;
  /** A parameter composed before its value is known (`named`): its value is bound per call by this name. */
  readonly name?: string;
}

/**
 * A piece of SQL with its parameters in place: text and parameters interleave (`strings.length ===
 * params.length + 1`), so fragments nest without anyone counting placeholders. A dialect renders it
 * (`$1::bigint` or `?`) only when it is run.
 */
export interface Sql {
  readonly strings: readonly string[];
  readonly params: readonly SqlParam[];
}

const isSql = (value: unknown): value is Sql =>
  typeof value === "object" && value !== null && "strings" in value && "params" in value;
/** A fragment that is one parameter and nothing else (`param(...)`). */
export const isParam = (fragment: Sql) =>
  fragment.params.length === 1 && fragment.strings[0] === "" && fragment.strings[1] === "";

/**
 * The tagged template every statement is written with: `${value}` binds a parameter, `${fragment}`
 * splices another fragment in, `${param(value, "bigint")}` binds one with a cast.
 */
export function sql(strings: TemplateStringsArray, ...values: ReadonlyArray<Sql | SqlValue>): Sql {
  // Only values (or single parameters): the template's own strings, the same array at every call of this
  // line, so the text rendered from it can be cached (see render).
  if (values.every((value) => !isSql(value) || isParam(value)))
    return {
      strings,
      params: values.map((value) =>
        isSql(value) ? (value.params[0] as SqlParam) : { value, type: undefined },
      ),
    };
  const text: string[] = [strings[0] as string];
  const params: SqlParam[] = [];
  values.forEach((value, index) => {
    const next = strings[index + 1] as string;
    const piece = isSql(value) ? value : param(value);
    // The fragment's first text joins the text before it, its last the text after it.
    text[text.length - 1] += piece.strings[0] as string;
    for (let i = 0; i < piece.params.length; i++) {
      params.push(piece.params[i] as SqlParam);
      text.push(piece.strings[i + 1] as string);
    }
    text[text.length - 1] += next;
  });
  return { strings: text, params };
}

/** A parameter with a type PostgreSQL is told (`$n::type`): needed for arrays and bare `IS NULL` tests. */
export function param(value: SqlParam["value"], type?: SqlType): Sql {
  return { strings: ["", ""], params: [{ value, type }] };
}

/**
 * A parameter without its value yet, bound at each call by `name` (`composedByName`): a hot statement is
 * composed once with these, whatever the values it runs with.
 */
export function named(name: string, type?: SqlType): Sql {
  return { strings: ["", ""], params: [{ value: null, type, name }] };
}

/** Text taken as SQL, never a parameter: identifiers and keywords the code chooses, never input. */
export function raw(text: string): Sql {
  return { strings: [text], params: [] };
}

/** Fragments joined by `separator` (`, ` for lists, `\n` for statements). */
export function join(fragments: readonly Sql[], separator: string): Sql {
  return fragments.reduce<Sql>(
    (joined, fragment, index) => (index === 0 ? fragment : sql`${joined}${raw(separator)}${fragment}`),
    raw(""),
  );
}

/** How a database writes and binds parameters (the dialect's part of rendering). */
export interface ParamStyle {
  placeholder(index: number, param: SqlParam): string;
  bind(param: SqlParam): unknown;
}

/**
 * Texts rendered from a template's own strings (a statement with no fragment in it), per style and per
 * the types its parameters were cast to: a hot statement is rendered once, and its text, the same
 * string every time, is the cheap key of the driver's prepared statements.
 */
const renderedTexts = new WeakMap<readonly string[], WeakMap<ParamStyle, Map<string, string>>>();

/** The statement's text, each parameter written as `style` writes them, and the values to bind. */
export function render(statement: Sql, style: ParamStyle): { text: string; values: unknown[] } {
  const values = statement.params.map((bound) => style.bind(bound));
  // Template strings are frozen; the arrays fragments are composed into are not (and are new each time).
  const cacheable = Object.isFrozen(statement.strings);
  const types = cacheable ? statement.params.map((bound) => bound.type ?? "").join() : "";
  const byStyle = cacheable ? renderedTexts.get(statement.strings)?.get(style) : undefined;
  const cached = byStyle?.get(types);
  if (cached !== undefined) return { text: cached, values };
  let text = statement.strings[0] as string;
  statement.params.forEach((bound, index) => {
    text += style.placeholder(index + 1, bound) + (statement.strings[index + 1] as string);
  });
  if (cacheable) {
    const styles = renderedTexts.get(statement.strings) ?? new WeakMap<ParamStyle, Map<string, string>>();
    const texts = styles.get(style) ?? new Map<string, string>();
    texts.set(types, text);
    styles.set(style, texts);
    renderedTexts.set(statement.strings, styles);
  }
  return { text, values };
}

/**
 * A statement composed once, bound at each call with values in the order of its parameters: its text is
 * then rendered once, as a template's without fragments is (a hot statement's fragments are not composed
 * again at every call).
 */
export function composedOnce(statement: Sql): (values: readonly unknown[]) => Sql {
  const strings = Object.freeze([...statement.strings]);
  return (values) => ({
    strings,
    params: statement.params.map((bound, index) => ({ value: values[index] as SqlValue, type: bound.type })),
  });
}

/**
 * `composedOnce` with its parameters bound by name (`named`), for a statement of many parameters: each
 * call gives every name its value; a parameter bound when the statement was composed keeps its value.
 */
export function composedByName<Name extends string>(
  statement: Sql,
): (values: Readonly<Record<Name, SqlParam["value"]>>) => Sql {
  const composed = { strings: Object.freeze([...statement.strings]), params: statement.params };
  return (values) => bindByName(composed, values);
}

/** `statement` with each named parameter (`named`) bound to its value in `values`. */
export function bindByName<Name extends string>(
  statement: Sql,
  values: Readonly<Record<Name, SqlParam["value"]>>,
): Sql {
  return {
    strings: statement.strings,
    params: statement.params.map((bound) =>
      bound.name === undefined ? bound : { value: values[bound.name as Name], type: bound.type },
    ),
  };
}
