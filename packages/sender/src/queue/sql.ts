/** A value a statement can bind: both drivers take these as they are (no booleans, no Dates). */
export type SqlValue = string | number | bigint | null;

/** A column type a parameter is cast to where PostgreSQL cannot infer it (SQLite ignores it). */
export type SqlType = "bigint" | "int" | "text" | "bigint[]" | "int[]" | "text[]";

/** One bound parameter inside a statement. */
export interface SqlParam {
  readonly value: SqlValue | readonly SqlValue[];
  readonly type: SqlType | undefined;
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

/**
 * The tagged template every statement is written with: `${value}` binds a parameter, `${fragment}`
 * splices another fragment in, `${param(value, "bigint")}` binds one with a cast.
 */
export function sql(strings: TemplateStringsArray, ...values: ReadonlyArray<Sql | SqlValue>): Sql {
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

/** The statement's text, each parameter written as `style` writes them, and the values to bind. */
export function render(statement: Sql, style: ParamStyle): { text: string; values: unknown[] } {
  let text = statement.strings[0] as string;
  statement.params.forEach((bound, index) => {
    text += style.placeholder(index + 1, bound) + (statement.strings[index + 1] as string);
  });
  return { text, values: statement.params.map((bound) => style.bind(bound)) };
}
