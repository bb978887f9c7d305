import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Alert, Modal, message } from 'antd';
import {
  getCompiledForm,
  type CrfDefinition,
  type EvaluationContext,
  type FormState,
  type Gender,
  type MissingCode,
} from '@ecrf/core';
import { MESSAGE_SECONDS } from '../utils/message-seconds';
import { CrfChildren } from './crf-node';
import {
  CrfStore,
  CrfStoreContext,
  type FormValues,
  type ItemMark,
  type ServerErrors,
  type UploadHandler,
} from './crf-store';
import { CrfUiContext } from './crf-ui';
import { ProgressiveContext, ProgressiveRender, REVEAL_EVENT, type ProgressiveOptions } from './progressive';
import './crf-form.css';

/** What the engine needs to know about the moment and the subject (see EvaluationContext in @ecrf/core). */
export interface CrfFormContext {
  /** The instant "now" and today() mean; defaults to the moment the form opened. Keep it stable between renders. */
  now?: Date;
  /** The study's zone; Asia/Shanghai unless said otherwise. */
  timeZone?: string;
  /** The subject's gender for reference ranges (genderFromPatient / genderFromFormContext convert the codes). */
  gender?: Gender | null;
  /** False without business.crf.save and business.crf.submit (isFormEditable): every widget read-only. */
  editable?: boolean;
  /** Study operate mode (typeOperate): every widget read-only. */
  operate?: boolean;
  /** Other forms' values form("标题", "item") reads, by title (the detail's formValues); keep it stable. */
  forms?: EvaluationContext['forms'];
  /** The study's 脊柱诊断分级标准 (the record detail's spineBandSet): spine measurement diagnoses. */
  spineBandSet?: EvaluationContext['spineBandSet'];
  /** 缺失原因: the items marked with a missing-data code, by name; keep it stable between renders. */
  missing?: EvaluationContext['missing'];
  /** 参考范围: the patient's site's ranges by item (overridesFromUsed of the record); keep it stable. */
  referenceRanges?: EvaluationContext['referenceRanges'];
}

export interface CrfFormProps {
  definition: CrfDefinition;
  /**
   * The stored values. A new form gets its defaults ("now" included) from core's
   * `initialValues(definition, context)`. The form keeps a working copy: handing back what onChange
   * gave (or an equal copy) changes nothing; other values replace the working copy.
   */
  values: FormValues;
  /** Every edit, with the engine's values: hidden items cleared, calculations applied, shapes canonical. */
  onChange?: (values: Record<string, unknown>, changedName: string) => void;
  /** Disables every widget (forms §4: operate mode, or neither business.crf.save nor business.crf.submit). */
  readOnly?: boolean;
  context?: CrfFormContext;
  /** Server-side messages per item, shown until the item is edited. */
  errors?: ServerErrors;
  /** Uploads a file and answers its URL or file key; without it the upload buttons are off. */
  onUpload?: UploadHandler;
  /** Show every item's messages, touched or not (after a refused submit). */
  showAllErrors?: boolean;
  /** The engine's full verdict after every evaluation: valid, errors, warnings, values. */
  onEvaluate?: (state: FormState) => void;
  /**
   * Given, every value item (a list group or table as one) gets a control of its own beside its label
   * that calls this with the item's name: where the page has no room for a side panel of items.
   */
  onItemOpen?: (itemName: string) => void;
  /** What the items' own controls show (an open query, a verified value), by item name. */
  itemMarks?: Readonly<Record<string, ItemMark>>;
  /** Items filled by recognition and not yet confirmed or changed: each shows a 识别 tag that confirms it. */
  recognised?: ReadonlySet<string>;
  onConfirmRecognised?: (itemName: string) => void;
  /** The study's missing-data codes (缺失原因): a marked item shows its code's label in place of its control. */
  missingCodes?: readonly MissingCode[];
  /**
   * Given (and with missingCodes), every top-level value item gets a 缺失 menu beside its label: mark it with a
   * code, or clear its mark (null). The page keeps the marks and hands them back in context.missing.
   */
  onMarkMissing?: (itemName: string, code: string | null) => void;
  /**
   * A large form renders its first items at once and the rest in idle time, each as soon as it comes near the
   * viewport or is jumped to (revealCrfItem), everything before printing (progressive.ts). Values, checks and
   * the save cover every item all the same: they are the store's. A form of no more items than `initial`
   * renders whole.
   */
  progressive?: boolean | ProgressiveOptions;
  className?: string;
}

function definitionProblem(definition: CrfDefinition): string | null {
  try {
    getCompiledForm(definition);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const definitionIds = new WeakMap<CrfDefinition, number>();
let nextDefinitionId = 0;
const definitionId = (definition: CrfDefinition) => {
  let id = definitionIds.get(definition);
  if (id === undefined) {
    id = nextDefinitionId += 1;
    definitionIds.set(definition, id);
  }
  return id;
};

/**
 * The CRF renderer: lays the definition out on the 24-column grid and shows what @ecrf/core's
 * evaluateForm decides — visible items, required marks, messages, calculated values, range marks.
 * An edit re-evaluates incrementally and re-renders only the items whose state changed.
 */
export function CrfForm(props: CrfFormProps) {
  const problem = useMemo(() => definitionProblem(props.definition), [props.definition]);
  if (problem) return <Alert type="error" showIcon title={problem} className="crf-form-problem" />;
  // A different definition is a different form: start afresh rather than carry state across.
  return <CrfFormBody key={definitionId(props.definition)} {...props} />;
}

function CrfFormBody({
  definition,
  values,
  onChange,
  readOnly,
  context,
  errors,
  onUpload,
  showAllErrors,
  onEvaluate,
  onItemOpen,
  itemMarks,
  recognised,
  onConfirmRecognised,
  missingCodes,
  onMarkMissing,
  progressive: progressiveOption,
  className,
}: CrfFormProps) {
  const [progressive] = useState(() => {
    if (!progressiveOption) return null;
    const controller = new ProgressiveRender(definition, progressiveOption === true ? {} : progressiveOption);
    return controller.complete ? null : controller;
  });
  const rootRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const root = rootRef.current;
    if (!progressive || !root) return;
    const stop = progressive.start();
    const reveal = (event: Event) => {
      const name = (event as CustomEvent<unknown>).detail;
      if (typeof name === 'string') progressive.reveal(name);
    };
    const revealAll = () => progressive.revealAll();
    root.addEventListener(REVEAL_EVENT, reveal);
    window.addEventListener('beforeprint', revealAll);
    return () => {
      stop();
      root.removeEventListener(REVEAL_EVENT, reveal);
      window.removeEventListener('beforeprint', revealAll);
    };
  }, [progressive]);
  const [openedAt] = useState(() => new Date());
  const prefix = useId();
  const evaluation: EvaluationContext = {
    now: context?.now ?? openedAt,
    timeZone: context?.timeZone,
    gender: context?.gender ?? null,
    editable: readOnly ? false : context?.editable,
    operate: context?.operate,
    forms: context?.forms,
    spineBandSet: context?.spineBandSet,
    missing: context?.missing,
    referenceRanges: context?.referenceRanges,
  };
  const input = {
    definition,
    values,
    context: evaluation,
    errors,
    showAllErrors,
    marks: itemMarks,
    recognised,
    missingCodes,
  };
  const [store] = useState(
    () =>
      new CrfStore(input, `crf${prefix.replace(/[^\w-]/g, '')}-`, {
        onChange,
        onUpload,
        onEvaluate,
        onItemOpen,
        onConfirmRecognised,
        // A read-only form shows marks but offers no menu to change them.
        onMarkMissing: readOnly ? undefined : onMarkMissing,
      }),
  );

  useLayoutEffect(() => {
    store.setHandlers({
      onChange,
      onUpload,
      onEvaluate,
      onItemOpen,
      onConfirmRecognised,
      onMarkMissing: readOnly ? undefined : onMarkMissing,
    });
  });
  useLayoutEffect(() => {
    store.sync(input);
  });
  useEffect(() => {
    onEvaluate?.(store.state);
    // Once, for the first evaluation; later ones are reported by the store.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [store]);

  const [modal, modalHolder] = Modal.useModal();
  const [messageApi, messageHolder] = message.useMessage({ duration: MESSAGE_SECONDS, maxCount: 3 });
  const ui = useMemo(() => ({ modal, message: messageApi }), [modal, messageApi]);
  // The tree depends on the definition only: edits reach items through their store subscriptions.
  const tree = useMemo(
    () => <CrfChildren nodes={definition.children} crfCols={definition.option.cols} />,
    [definition],
  );

  return (
    <CrfStoreContext.Provider value={store}>
      <CrfUiContext.Provider value={ui}>
        <div
          ref={rootRef}
          className={`crf-form${readOnly ? ' crf-form-readonly' : ''}${className ? ` ${className}` : ''}`}
        >
          <ProgressiveContext.Provider value={progressive}>{tree}</ProgressiveContext.Provider>
        </div>
        {modalHolder}
        {messageHolder}
      </CrfUiContext.Provider>
    </CrfStoreContext.Provider>
  );
}
