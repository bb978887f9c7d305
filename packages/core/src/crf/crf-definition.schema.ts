import { z } from 'zod';

/**
 * The CRF definition format (forms §3): a tree of nodes { id, name, title, type, option, children }.
 * Spec fields keep their names and their loose legacy typing (flags as 1/"1"/true, numbers as
 * strings) so definitions exported by the old system load unchanged; helpers in options.ts read
 * them one way. Our extensions (showIf, calc, checks, crfCols, validate.type/precision, url, identifier, titleEn,
 * molarMass, patientField) are documented in docs/crf-format.md.
 */
export const ITEM_TYPES = [
  'section',
  'title',
  'group',
  'listGroup',
  'link',
  'checkbox',
  'radio',
  'select',
  'multiSelect',
  'slider',
  'table',
  'input',
  'textarea',
  'int',
  'real',
  'text',
  'number',
  'date',
  'datetime',
  'partialDate',
  'time',
  'imageUpload',
  'videoUpload',
  'fileUpload',
  'card',
  /** Extension: the automatic Cobb angle tool (docs/spine-tools.md); its value is the recognition result JSON. */
  'spineCobb',
  /** Spine manual measurement (forms §3, §4): the value is the JSON of spineManualDataSchema. */
  'spineMeasure',
] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

/** Types that only arrange or show other nodes and hold no value of their own. */
export const CONTAINER_TYPES = ['section', 'group', 'card'] as const satisfies readonly ItemType[];
/** Types whose value is an array of rows keyed by the child item names (forms §3). */
export const ROW_TYPES = ['listGroup', 'table'] as const satisfies readonly ItemType[];
export const DISPLAY_TYPES = ['title', 'link'] as const satisfies readonly ItemType[];
export const CHOICE_TYPES = ['checkbox', 'radio', 'select', 'multiSelect'] as const satisfies readonly ItemType[];
export const DATE_TYPES = ['date', 'datetime', 'partialDate'] as const satisfies readonly ItemType[];
export const NUMERIC_TYPES = ['int', 'real', 'number', 'slider'] as const satisfies readonly ItemType[];

const has = <T extends string>(list: readonly T[], type: string): type is T =>
  (list as readonly string[]).includes(type);
export const isContainerType = (t: ItemType) => has(CONTAINER_TYPES, t);
export const isRowType = (t: ItemType) => has(ROW_TYPES, t);
export const isChoiceType = (t: ItemType) => has(CHOICE_TYPES, t);
export const isDateType = (t: ItemType) => has(DATE_TYPES, t);
export const isNumericType = (t: ItemType) => has(NUMERIC_TYPES, t);
/** Items that carry a value the user enters or the engine calculates. */
export const isValueType = (t: ItemType) => !has(CONTAINER_TYPES, t) && !has(DISPLAY_TYPES, t);
export const canHaveChildren = (t: ItemType) => has(CONTAINER_TYPES, t) || has(ROW_TYPES, t);

/** Legacy flags arrive as 1, "1", true (on) or 0, "0", false, "" (off). */
export const flagSchema = z.union([z.boolean(), z.number(), z.string()]);
export type Flag = z.infer<typeof flagSchema>;
/** Numeric option fields arrive as numbers or numeric strings. */
export const numberLikeSchema = z.union([z.number(), z.string()]);
export type NumberLike = z.infer<typeof numberLikeSchema>;

export const CHECK_SEVERITIES = ['error', 'warning'] as const;
export type CheckSeverity = (typeof CHECK_SEVERITIES)[number];

/** Extension: a cross-field check. The expression must hold (be true) for the data to pass. */
export const crossCheckSchema = z.object({
  expression: z.string().min(1),
  message: z.string().min(1),
  severity: z.enum(CHECK_SEVERITIES).default('error'),
});
export type CrossCheck = z.infer<typeof crossCheckSchema>;

export const VALIDATE_TYPES = ['int', 'float', 'email', 'phone', 'idcard'] as const;
export type ValidateType = (typeof VALIDATE_TYPES)[number];

export const itemOptionSchema = z
  .object({
    // Display
    title: z.string().optional(),
    /** Extension: an alternate English title, from bilingual sources (ODM TranslatedText xml:lang="en"). */
    titleEn: z.string().optional(),
    description: z.string().optional(),
    placeholder: z.string().optional(),
    width: numberLikeSchema.optional(),
    cols: numberLikeSchema.optional(),
    crfCols: numberLikeSchema.optional(),
    itemLayout: z.string().optional(),
    rightItemText: z.string().optional(),
    hidden: flagSchema.optional(),
    /**
     * Not displayed on the page, but applicable: its value is kept, calculated and checked, and other
     * items may read it (REDCap's @HIDDEN). `hidden` is "never applicable": invisible and cleared.
     */
    notDisplayed: flagSchema.optional(),
    showStyle: z.string().optional(),
    // Choices: comma-separated lists of equal length
    optionsValue: z.string().optional(),
    optionsText: z.string().optional(),
    // Behaviour
    readOnly: flagSchema.optional(),
    required: flagSchema.optional(),
    defaultValue: z.union([z.string(), z.number()]).optional(),
    format: z.string().optional(),
    units: z.string().optional(),
    // Validation
    validate: z
      .object({
        min: numberLikeSchema.optional(),
        max: numberLikeSchema.optional(),
        type: z.enum(VALIDATE_TYPES).optional(),
        precision: numberLikeSchema.optional(),
      })
      .loose()
      .optional(),
    validationEx: z.string().optional(),
    validationErrorMsg: z.string().optional(),
    // Triggers
    trig: z.string().optional(),
    tindex: numberLikeSchema.optional(),
    trigex: z.string().optional(),
    // Slider
    valueMin: numberLikeSchema.optional(),
    valueMax: numberLikeSchema.optional(),
    valueStep: numberLikeSchema.optional(),
    // Additions
    addition: z.string().optional(),
    additionIndex: numberLikeSchema.optional(),
    // Reference ranges
    refValueMaleMin: numberLikeSchema.optional(),
    refValueMaleMax: numberLikeSchema.optional(),
    refValueFemaleMin: numberLikeSchema.optional(),
    refValueFemaleMax: numberLikeSchema.optional(),
    /**
     * Extension: the analyte's molar mass in g/mol, so a range written in a mass unit (mg/dL) converts to a
     * substance unit (mmol/L) of the unit selector and back (units.ts).
     */
    molarMass: numberLikeSchema.optional(),
    /**
     * Extension (参考范围, issue 37): the analyte code a site's laboratory reference ranges name this item by (WBC,
     * ALT). Absent, the known analyte its title, name or aliases name, else its name (lab-ranges.ts itemAnalyte).
     */
    analyte: z.string().optional(),
    /** Extension (参考范围): this date item is the sample date a site's reference range is chosen at. */
    sampleDate: flagSchema.optional(),
    // Dates
    itemType: z.enum(['date', 'datetime']).optional(),
    /**
     * Extension: the order a REDCap project shows the date in (its date_dmy / date_mdy validations), kept so that
     * a dictionary imported from REDCap exports as it came; ours store and show yyyy-MM-dd whatever it says.
     */
    dateOrder: z.enum(['ymd', 'dmy', 'mdy']).optional(),
    // Identify (recognition) options
    identifyId: numberLikeSchema.optional(),
    identifyType: numberLikeSchema.optional(),
    identifyIndex: numberLikeSchema.optional(),
    /**
     * Extension: other names or codes a recognised lab-report row may carry for this item (智能识别), as a list or
     * one comma-separated string: ['白细胞', 'WBC'] (docs/crf-format.md, docs/recognition.md).
     */
    aliases: z.union([z.array(z.string()), z.string()]).optional(),
    // Link target
    url: z.string().optional(),
    // Extensions (docs/crf-format.md)
    showIf: z.string().optional(),
    calc: z.string().optional(),
    checks: z.array(crossCheckSchema).optional(),
    identifier: flagSchema.optional(),
    /** Extension: the patient field a new form is prefilled from (PATIENT_FIELDS in patient-prefill.ts). */
    patientField: z.string().optional(),
    /** Extension (spineCobb): ordinary items that receive the rounded pt/mt/tl angles and the curve type. */
    ptItem: z.string().optional(),
    mtItem: z.string().optional(),
    tlItem: z.string().optional(),
    curveTypeItem: z.string().optional(),
    /** Extension (spineMeasure): measure ("TK") or its diagnosis ("TK.diagnosis") → the ordinary item receiving it. */
    measureItems: z.record(z.string(), z.string()).optional(),
  })
  .loose();
export type ItemOption = z.infer<typeof itemOptionSchema>;
export const KNOWN_OPTION_KEYS: ReadonlySet<string> = new Set(Object.keys(itemOptionSchema.shape));

export interface CrfNode {
  id?: string | number | undefined;
  name: string;
  title: string;
  type: ItemType;
  option: ItemOption;
  children: CrfNode[];
  depth?: number | undefined;
}

export const crfNodeSchema: z.ZodType<CrfNode> = z.lazy(() =>
  z.object({
    id: z.union([z.string(), z.number()]).optional(),
    name: z.string().default(''),
    title: z.string().default(''),
    type: z.enum(ITEM_TYPES, { error: (issue) => `未知的题目类型 ${JSON.stringify(issue.input)}` }),
    option: itemOptionSchema.default({}),
    children: z.array(crfNodeSchema).default([]),
    depth: z.number().int().optional(),
  }),
) as z.ZodType<CrfNode>;

/** Extension: crfRules fill an item (often a list-group column, row by row) from a formula. */
export const crfRuleSchema = z.object({ target: z.string().min(1), formula: z.string().min(1) });
export type CrfRule = z.infer<typeof crfRuleSchema>;

export const crfOptionSchema = z
  .object({
    cols: numberLikeSchema.optional(),
    identifyId: numberLikeSchema.optional(),
    identifyType: numberLikeSchema.optional(),
    identifyIndex: numberLikeSchema.optional(),
  })
  .loose();
export type CrfOption = z.infer<typeof crfOptionSchema>;

export interface CrfDefinition {
  id?: string | number | undefined;
  title: string;
  option: CrfOption;
  children: CrfNode[];
  crfRules?: CrfRule[] | undefined;
}

export const crfDefinitionSchema: z.ZodType<CrfDefinition> = z.object({
  id: z.union([z.string(), z.number()]).optional(),
  title: z.string().min(1, '表单标题不能为空'),
  option: crfOptionSchema.default({}),
  children: z.array(crfNodeSchema),
  crfRules: z.array(crfRuleSchema).optional(),
}) as z.ZodType<CrfDefinition>;
