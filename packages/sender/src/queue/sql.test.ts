import { describe, expect, it } from "vitest";
import { join, type ParamStyle, param, raw, render, sql } from "./sql.js";

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

  it("joins fragments with a separator, keeping each one's parameters", () => {
    expect(render(join([sql`a = ${1}`, raw("b IS NULL"), sql`c = ${3}`], " AND "), dollars)).toEqual({
      text: "a = $1 AND b IS NULL AND c = $2",
      values: [1, 3],
    });
    expect(render(join([sql`x = ${1}`], ", "), dollars)).toEqual({ text: "x = $1", values: [1] });
    expect(render(join([], ", "), dollars)).toEqual({ text: "", values: [] });
  });
});
