/** The part of a zod schema the rule needs; keeps the web package free of a direct zod import. */
interface ParsingSchema {
  safeParse: (value: unknown) => { success: boolean; error?: { issues: ReadonlyArray<{ message: string }> } };
}

/**
 * An antd Form rule that checks a value with a @ecrf/core schema, so the browser shows the
 * very message the server would answer with for the same input. Empty inputs count as missing.
 */
export function zodRule(schema: ParsingSchema) {
  return {
    validator: async (_rule: unknown, value: unknown) => {
      const input = value === '' || value === null ? undefined : value;
      const result = schema.safeParse(input);
      if (!result.success) throw new Error(result.error?.issues[0]?.message ?? '');
    },
  };
}
