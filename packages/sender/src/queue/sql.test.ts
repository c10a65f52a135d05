import { describe, expect, it } from "vitest";
import {
  bindByName,
  composedByName,
  join,
  named,
  type ParamStyle,
  param,
  raw,
  render,
  type SqlType,
  sql,
} from "./sql.js";

const dollars: ParamStyle = {
  placeholder: (index, bound) => (bound.type ? `$${index}::${bound.type}` : `$${index}`),
  bind: (bound) => bound.value,
};
const questions: ParamStyle = {
  placeholder: () => "?",
  bind: (bound) => (Array.isArray(bound.value) ? JSON.stringify(bound.value) : bound.value),
};

describe("sql", () => {
  it("binds every interpolated value as a parameter, never as text", () => {
    const name = "x'; DROP TABLE webhook_messages; --";
    expect(render(sql`SELECT * FROM t WHERE a = ${name} AND b = ${7}`, dollars)).toEqual({
      text: "SELECT * FROM t WHERE a = $1 AND b = $2",
      values: [name, 7],
    });
    expect(render(sql`SELECT ${null}`, questions)).toEqual({ text: "SELECT ?", values: [null] });
  });

  it("splices fragments in, numbering their parameters in order wherever they stand", () => {
    const inner = sql`b = ${2} AND c IN (${param([3, 4], "bigint[]")})`;
    const statement = sql`SELECT ${1} FROM t WHERE a = ${"one"} AND ${inner} LIMIT ${5}`;
    expect(render(statement, dollars)).toEqual({
      text: "SELECT $1 FROM t WHERE a = $2 AND b = $3 AND c IN ($4::bigint[]) LIMIT $5",
      values: [1, "one", 2, [3, 4], 5],
    });
    expect(render(statement, questions)).toEqual({
      text: "SELECT ? FROM t WHERE a = ? AND b = ? AND c IN (?) LIMIT ?",
      values: [1, "one", 2, "[3,4]", 5],
    });
  });

  it("takes raw text as SQL, and a fragment that starts or ends with a parameter", () => {
    expect(render(sql`SELECT ${raw("id, name")} FROM ${raw("t")}`, dollars)).toEqual({
      text: "SELECT id, name FROM t",
      values: [],
    });
    expect(render(sql`${param(1)}${param(2, "int")}`, dollars)).toEqual({
      text: "$1$2::int",
      values: [1, 2],
    });
    expect(render(sql``, dollars)).toEqual({ text: "", values: [] });
  });

  it("splices a fragment whole when it is more than one bare parameter: text beside its parameter, or two parameters", () => {
    // Each alone: a statement takes the short way only when every value in it is a bare parameter.
    expect(render(sql`SELECT ${sql`-${1}`}`, dollars)).toEqual({ text: "SELECT -$1", values: [1] });
    expect(render(sql`SELECT ${sql`${2} + 1`}`, dollars)).toEqual({ text: "SELECT $1 + 1", values: [2] });
    expect(render(sql`SELECT ${sql`${3}${4}`}`, dollars)).toEqual({ text: "SELECT $1$2", values: [3, 4] });
    expect(render(sql`SELECT ${sql`lower(${"A"})`}`, dollars)).toEqual({
      text: "SELECT lower($1)",
      values: ["A"],
    });
  });

  it("writes a statement's text once per style and parameter types, and binds each call's own values", () => {
    let placeholders = 0;
    const counting = (style: ParamStyle): ParamStyle => ({
      placeholder: (index, bound) => {
        placeholders += 1;
        return style.placeholder(index, bound);
      },
      bind: style.bind,
    });
    const [numbered, unnumbered] = [counting(dollars), counting(questions)];
    // One line of code, so one template: the hot statements are written like this.
    const byId = (id: number, type?: SqlType) =>
      sql`SELECT * FROM t WHERE id = ${param(id, type)} AND n = ${id}`;
    expect(render(byId(1), numbered)).toEqual({
      text: "SELECT * FROM t WHERE id = $1 AND n = $2",
      values: [1, 1],
    });
    expect(placeholders).toBe(2);
    expect(render(byId(2), numbered)).toEqual({
      text: "SELECT * FROM t WHERE id = $1 AND n = $2",
      values: [2, 2],
    });
    expect(placeholders).toBe(2);
    // A cast changes the text: written anew, and kept apart from the uncast one.
    expect(render(byId(3, "bigint"), numbered)).toEqual({
      text: "SELECT * FROM t WHERE id = $1::bigint AND n = $2",
      values: [3, 3],
    });
    expect(placeholders).toBe(4);
    expect(render(byId(4), numbered).text).toBe("SELECT * FROM t WHERE id = $1 AND n = $2");
    expect(render(byId(5, "bigint"), numbered).text).toBe("SELECT * FROM t WHERE id = $1::bigint AND n = $2");
    expect(placeholders).toBe(4);
    // Another database writes its own text.
    expect(render(byId(6), unnumbered)).toEqual({
      text: "SELECT * FROM t WHERE id = ? AND n = ?",
      values: [6, 6],
    });
    expect(placeholders).toBe(6);
  });

  it("joins fragments with a separator, keeping each one's parameters", () => {
    expect(render(join([sql`a = ${1}`, raw("b IS NULL"), sql`c = ${3}`], " AND "), dollars)).toEqual({
      text: "a = $1 AND b IS NULL AND c = $2",
      values: [1, 3],
    });
    expect(render(join([sql`x = ${1}`], ", "), dollars)).toEqual({ text: "x = $1", values: [1] });
    expect(render(join([], ", "), dollars)).toEqual({ text: "", values: [] });
  });

  it("binds named parameters by name at each call, keeping a composed statement's text and its bound parameters", () => {
    const where = sql`a = ${named("a", "bigint")} AND b IN (${named("list", "bigint[]")}) AND c = ${"fixed"}`;
    const statement = composedByName<"a" | "list">(
      sql`SELECT ${raw("x")} FROM t WHERE ${where} AND d = ${named("a")}`,
    );
    const first = statement({ a: 1, list: [2, 3] });
    const second = statement({ a: 4, list: [] });
    expect(second.strings).toBe(first.strings);
    expect(Object.isFrozen(first.strings)).toBe(true);
    expect(render(first, dollars)).toEqual({
      text: "SELECT x FROM t WHERE a = $1::bigint AND b IN ($2::bigint[]) AND c = $3 AND d = $4",
      values: [1, [2, 3], "fixed", 1],
    });
    expect(render(second, questions)).toEqual({
      text: "SELECT x FROM t WHERE a = ? AND b IN (?) AND c = ? AND d = ?",
      values: [4, "[]", "fixed", 4],
    });
    // Bound once, for one call: the statement's own text, not a copy kept for the next.
    const once = sql`SELECT ${named("a")}, ${raw("y")}`;
    const bound = bindByName(once, { a: 5 });
    expect(bound.strings).toBe(once.strings);
    expect(render(bound, dollars)).toEqual({ text: "SELECT $1, y", values: [5] });
  });
});
