import { expect } from 'vitest';
import { z } from 'zod';

/**
 * Contract tests: a route's real answer checked against core's schema for it. The zod issues (path and message)
 * are the failure, so a field the server added, renamed or retyped is named in the test output.
 */
export function expectContract(schema: z.ZodType, data: unknown): void {
  const parsed = schema.safeParse(data);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
}

/** The data of a call that must succeed, checked against its schema and answered as parsed. */
export function contractData<S extends z.ZodType>(
  schema: S,
  res: { status: number; body: { data?: unknown } },
): z.output<S> {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expectContract(schema, res.body.data);
  return schema.parse(res.body.data);
}

/** A page of a list (core's Page): its rows and the total. */
export function pageOf<S extends z.ZodType>(row: S) {
  return z.object({ list: z.array(row), total: z.number() });
}
