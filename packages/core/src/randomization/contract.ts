import { z } from 'zod';
import { rowIdSchema, rowIdTextSchema } from '../ids.js';
import { pagingQueryFields } from '../request-fields.js';
import { RANDOMIZATION_METHODS, randomizationConfigSchema, type RandomizationConfigInput } from './config.js';
import type { SimulationResult } from './types.js';

/**
 * The HTTP contract of randomization (platform §7, issue 15): the configuration and its versions, the allocation
 * list, randomizing, the results, unblinding and the simulation. Requests as the server validates them, answers as
 * the browser reads them. The configuration itself is checked by the service with randomizationConfigSchema.
 */

// ---- Requests ----

const passwordSchema = z.string({ error: '请输入密码' }).min(1, '请输入密码').max(100);
const reasonSchema = (msg: string) => z.string({ error: msg }).trim().min(1, msg).max(500);
/** The configuration as sent: checked by the service with the core schema and its cross-field rules. */
const configObjectSchema = z.record(z.string(), z.unknown());

export const randomizationSaveBodySchema = z.object({
  studyId: rowIdSchema,
  config: configObjectSchema,
  listCsv: z.string().max(5_000_000).nullish(),
  reason: z.string().trim().max(500).nullish(),
});
/** A new configuration version, with an uploaded list (CSV) or none; a reason once a patient is randomized. */
export type RandomizationSaveBody = Omit<z.input<typeof randomizationSaveBodySchema>, 'config'> & {
  config: RandomizationConfigInput;
};

export const randomizationStudyQuerySchema = z.object({ studyId: rowIdTextSchema });

export const allocationListQuerySchema = z.object({
  studyId: rowIdTextSchema,
  stratum: z.string().max(400).optional(),
  version: z.coerce.number().int().min(1).max(100_000).optional(),
  ...pagingQueryFields,
});

export const randomizeBodySchema = z.object({ studyId: rowIdSchema, subjectId: rowIdSchema });
export const subjectRandomizationQuerySchema = z.object({ studyId: rowIdTextSchema, subjectId: rowIdTextSchema });

export const randomlySelectedQuerySchema = z.object({
  studyId: rowIdTextSchema,
  arm: z.string().max(20).optional(),
  keyword: z.string().max(50).optional(),
  ...pagingQueryFields,
});

export const emergencyUnblindBodySchema = z.object({
  studyId: rowIdSchema,
  subjectId: rowIdSchema,
  password: passwordSchema,
  reason: reasonSchema('请填写揭盲原因'),
});
export type EmergencyUnblindBody = z.input<typeof emergencyUnblindBodySchema>;

export const unblindAllBodySchema = z.object({
  studyId: rowIdSchema,
  password: passwordSchema,
  confirmText: z.string({ error: '请输入项目名称确认' }).min(1, '请输入项目名称确认').max(100),
  reason: z.string().trim().max(500).nullish(),
});
export type UnblindAllBody = z.input<typeof unblindAllBodySchema>;

export const randomizationExportBodySchema = z.object({ studyId: rowIdSchema });

export const simulateBodySchema = z.object({
  studyId: rowIdSchema,
  config: configObjectSchema.nullish(),
  patients: z.number().int().min(1).max(5000),
  runs: z.number().int().min(1).max(1000),
  distributions: z.record(z.string().max(30), z.record(z.string().max(20), z.number().min(0).max(1))).optional(),
  /** Factor level shares from the study's own patients, where `distributions` gives none. */
  fromPatients: z.boolean().optional(),
});
/** A simulation of the configured method, or of a configuration not yet saved. */
export type SimulateBody = Omit<z.input<typeof simulateBodySchema>, 'config'> & {
  config?: RandomizationConfigInput | null;
};

// ---- Responses ----

const methodSchema = z.enum(RANDOMIZATION_METHODS);

/** GET …/randomization/config: the version in force (block sizes and list length hidden from blinded roles). */
export const randomizationConfigViewSchema = z.strictObject({
  configured: z.boolean(),
  version: z.number().nullable(),
  method: methodSchema.nullable(),
  listSource: z.enum(['generated', 'uploaded', 'none']).nullable(),
  config: randomizationConfigSchema.partial({ blockSizes: true, listLength: true }).nullable(),
  /** A patient has been randomized: a new version needs a reason. */
  locked: z.boolean(),
  randomizedCount: z.number(),
  armsVisible: z.boolean(),
  unblindedAll: z.strictObject({ unblindTime: z.string(), unblindBy: z.string() }).nullable(),
  versions: z.array(
    z.strictObject({
      version: z.number(),
      method: methodSchema,
      listSource: z.string(),
      reason: z.string().nullable(),
      createTime: z.string(),
      createBy: z.string().nullable(),
    }),
  ),
});
export type RandomizationConfigView = z.infer<typeof randomizationConfigViewSchema>;

export const randomizationSavedSchema = z.strictObject({
  configId: z.number(),
  version: z.number(),
  method: methodSchema,
  listSource: z.string(),
  strata: z.number(),
  slots: z.number(),
});
export type RandomizationSaved = z.infer<typeof randomizationSavedSchema>;

/** A site a factor may stratify by. */
export const factorDeptSchema = z.strictObject({ deptId: z.number(), deptName: z.string() });
export type FactorDept = z.infer<typeof factorDeptSchema>;

/** One patient's randomization as the caller may see it. */
export const subjectRandomizationSchema = z.strictObject({
  randomizationId: z.number(),
  subjectId: z.number(),
  subjectRecordId: z.number(),
  randomizationNo: z.string(),
  randomizationTime: z.string(),
  kitCode: z.string(),
  blinded: z.boolean(),
  armVisible: z.boolean(),
  arm: z.string().nullable(),
  armLabel: z.string().nullable(),
  stratum: z.string(),
  stratumLabel: z.string(),
  emergencyUnblinded: z.boolean(),
  /** Taken from the test list (a test patient's, numbered T0001…): never a production slot. */
  test: z.boolean(),
});
export type SubjectRandomization = z.infer<typeof subjectRandomizationSchema>;

/** The emergency unblinding's answer: the patient's arm, told to the one who unblinded, and when. */
export const emergencyUnblindedSchema = subjectRandomizationSchema.extend({ unblindTime: z.string() });
export type EmergencyUnblinded = z.infer<typeof emergencyUnblindedSchema>;
export const unblindedAllSchema = z.strictObject({ unblindTime: z.string() });

/** A row of 随机结果: a randomized patient. */
export const selectedRowSchema = subjectRandomizationSchema.extend({
  identificationCode: z.string(),
  subjectName: z.string(),
  deptName: z.string(),
  randomizeBy: z.string(),
});
export type SelectedRow = z.infer<typeof selectedRowSchema>;

export const selectedPageSchema = z.strictObject({
  armsVisible: z.boolean(),
  list: z.array(selectedRowSchema),
  total: z.number(),
});
export type SelectedPage = z.infer<typeof selectedPageSchema>;

/** A slot of the allocation list and whether it is used (its patient only for a caller who sees the site). */
export const allocationSlotRowSchema = z.strictObject({
  stratum: z.string(),
  stratumLabel: z.string(),
  slot: z.number(),
  block: z.number(),
  blockSize: z.number(),
  arm: z.string(),
  armLabel: z.string(),
  kitCode: z.string(),
  used: z.boolean(),
  randomizationNo: z.string().nullable(),
  subjectId: z.number().nullable(),
});
export type AllocationSlotRow = z.infer<typeof allocationSlotRowSchema>;

export const allocationListSchema = z.strictObject({
  version: z.number().nullable(),
  /** The seed of a generated list (it regenerates the list): an auditor verifies with it. */
  seed: z.string().nullable(),
  listSource: z.string().nullable(),
  list: z.array(allocationSlotRowSchema),
  total: z.number(),
});
export type AllocationList = z.infer<typeof allocationListSchema>;

const armCountsSchema = z.record(z.string(), z.number()).nullable();

/** GET …/randomization/result: use per arm, stratum and factor level. */
export const randomizationResultSchema = z.strictObject({
  configured: z.boolean(),
  version: z.number().optional(),
  method: methodSchema.optional(),
  blinded: z.boolean().optional(),
  armsVisible: z.boolean(),
  total: z.number(),
  arms: z
    .array(z.strictObject({ code: z.string(), label: z.string(), ratio: z.number(), count: z.number() }))
    .nullable(),
  strata: z.array(
    z.strictObject({
      stratum: z.string(),
      stratumLabel: z.string(),
      size: z.number(),
      used: z.number(),
      arms: armCountsSchema,
    }),
  ),
  factorLevels: z.array(
    z.strictObject({
      factor: z.string(),
      factorLabel: z.string(),
      level: z.string(),
      levelLabel: z.string(),
      count: z.number(),
      arms: armCountsSchema,
    }),
  ),
});
export type RandomizationResult = z.infer<typeof randomizationResultSchema>;

const statsFields = { mean: z.number(), min: z.number(), max: z.number() };

/** The simulation's answer: core's SimulationResult (simulate.ts builds it). */
export const simulationResultSchema: z.ZodType<SimulationResult> = z.strictObject({
  patients: z.number(),
  runs: z.number(),
  seed: z.string(),
  method: z.string(),
  arms: z.array(
    z.strictObject({ code: z.string(), label: z.string(), ratio: z.number(), expected: z.number(), ...statsFields }),
  ),
  overall: z.strictObject({
    mean: z.number(),
    p95: z.number(),
    max: z.number(),
    histogram: z.array(z.strictObject({ imbalance: z.number(), runs: z.number() })),
  }),
  strata: z.array(
    z.strictObject({
      stratum: z.string(),
      patientsMean: z.number(),
      imbalanceMean: z.number(),
      imbalanceMax: z.number(),
    }),
  ),
  factorLevels: z.array(
    z.strictObject({ factor: z.string(), level: z.string(), imbalanceMean: z.number(), imbalanceMax: z.number() }),
  ),
  predictability: z.number().nullable(),
  predictabilityBaseline: z.number(),
});
