import { CompiledQuery, type Compilable } from 'kysely';

interface Template {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** For each value: the positions of the parameters that carry it. */
  readonly slots: readonly (readonly number[])[];
}

type Value = number | string;

/** Values no query of ours carries, standing in for the real ones while a template is compiled. */
const sentinel = (index: number, like: Value): Value =>
  typeof like === 'number' ? -987_654_300 - index : `\u0001template value ${index}\u0001`;

/** Templates per database (keyed by its adapter, as Kysely's transactions share it), by name. */
const templates = new WeakMap<object, Map<string, Template | null>>();

const templateOf = (query: CompiledQuery, stand: readonly Value[]): Template | null => {
  const at = new Map(stand.map((value, index) => [value, index]));
  const slots: number[][] = stand.map(() => []);
  query.parameters.forEach((parameter, position) => {
    const index =
      typeof parameter === 'number' || typeof parameter === 'string' ? at.get(parameter) : undefined;
    if (index !== undefined) slots[index]?.push(position);
  });
  // A value inlined as a literal, or not used: this shape cannot be templated.
  if (slots.some((positions) => positions.length === 0)) return null;
  return { sql: query.sql, parameters: query.parameters, slots };
};

/**
 * A query whose shape never changes but for some values (numbers or strings), compiled by Kysely once per database
 * and name, then run with other values: `build` is called with stand-ins once, and the compiled
 * parameters that carry them are swapped for the real values on each call. Kysely's builders and
 * compiler cost far more than the statement itself for the small statements of a frequent job.
 * `name` must name one shape (the same `build` up to `values`).
 */
export const templated = <Values extends readonly Value[]>(
  db: { getExecutor(): { readonly adapter: object } },
  name: string,
  build: (...values: Values) => Compilable,
  values: Values,
): CompiledQuery => {
  const adapter = db.getExecutor().adapter;
  let known = templates.get(adapter);
  if (!known) {
    known = new Map();
    templates.set(adapter, known);
  }
  let template = known.get(name);
  if (template === undefined) {
    const stand = values.map((value, index) => sentinel(index, value)) as unknown as Values;
    template = templateOf(build(...stand).compile(), stand);
    known.set(name, template);
  }
  if (template === null) return build(...values).compile();
  const parameters = [...template.parameters];
  template.slots.forEach((positions, index) => {
    for (const position of positions) parameters[position] = values[index];
  });
  return CompiledQuery.raw(template.sql, parameters);
};
