import { createContext, useContext, useSyncExternalStore } from 'react';
import {
  evaluateForm,
  getCompiledForm,
  readRows,
  type CrfDefinition,
  type CrfNode,
  type EvaluationContext,
  type FormIssue,
  type FormState,
  type MissingCode,
} from '@ecrf/core';

export type UploadKind = 'image' | 'video' | 'file';
/** What an upload gives back: a URL, or a file key shown through the download call (forms §3, §7). */
export interface UploadResult {
  url?: string;
  fileKey?: string;
}
/** `onProgress` hears the percentage sent (forms §7: uploads report their progress). */
export type UploadHandler = (
  file: File,
  kind: UploadKind,
  onProgress?: (percent: number) => void,
  /** UPL-17: the stored value of the video this picture is the first frame of. */
  thumbnailOf?: string,
) => Promise<UploadResult>;

/**
 * Server-side messages to show under items: the engine's issue list as the server returns it, or a
 * map from item name (a row cell as `list[0].child`) to one message or several.
 */
export type ServerErrors = Readonly<Record<string, string | readonly string[]>> | readonly FormIssue[];

export type FormValues = Readonly<Record<string, unknown>>;

export interface StoreHandlers {
  onChange?: ((values: Record<string, unknown>, changedName: string) => void) | undefined;
  onUpload?: UploadHandler | undefined;
  onEvaluate?: ((state: FormState) => void) | undefined;
  /** Opens the page's panel of one item (history, SDV, queries); given, each item shows its own control for it. */
  onItemOpen?: ((itemName: string) => void) | undefined;
  /** The nurse confirms a value filled by recognition (its 识别 tag). */
  onConfirmRecognised?: ((itemName: string) => void) | undefined;
  /**
   * 缺失原因 (issue 37): the nurse marks an item with one of the study's codes, or clears its mark (null). Given
   * (and the study has codes), each item shows its own 缺失 menu; the marks come back in context.missing.
   */
  onMarkMissing?: ((itemName: string, code: string | null) => void) | undefined;
}

/** What the page marks on an item's own control: an open query, or a verified (SDV) value. */
export type ItemMark = 'doubt' | 'verified';

export interface StoreInput {
  definition: CrfDefinition;
  values: FormValues;
  context: EvaluationContext;
  errors?: ServerErrors | undefined;
  showAllErrors?: boolean | undefined;
  /** Marks on the items' own controls, by item name (see StoreHandlers.onItemOpen). */
  marks?: Readonly<Record<string, ItemMark>> | undefined;
  /** Items whose value recognition filled and the nurse has not confirmed or changed yet: tagged 识别. */
  recognised?: ReadonlySet<string> | undefined;
  /** The study's missing-data codes (缺失原因): the labels of marked items and the choices of the 缺失 menu. */
  missingCodes?: readonly MissingCode[] | undefined;
}

const NO_CODES: readonly MissingCode[] = [];

const NONE_RECOGNISED: ReadonlySet<string> = new Set();

/** The key of a cell in a list group or table, for touched flags and server messages. */
export const cellKey = (container: string, row: number, child: string) => `${container}[${row}].${child}`;

const EMPTY_MESSAGES = new Map<string, readonly string[]>();

function serverMessages(errors: ServerErrors | undefined): Map<string, readonly string[]> {
  if (!errors) return EMPTY_MESSAGES;
  const out = new Map<string, string[]>();
  const add = (key: string, message: string) => {
    const list = out.get(key);
    if (!list) out.set(key, [message]);
    else if (!list.includes(message)) list.push(message);
  };
  if (Array.isArray(errors)) {
    for (const issue of errors as readonly FormIssue[]) {
      if (issue.severity === 'warning') continue;
      const key =
        issue.container !== undefined && issue.row !== undefined
          ? cellKey(issue.container, issue.row, issue.item)
          : issue.item;
      add(key, issue.message);
    }
  } else {
    for (const [key, value] of Object.entries(errors as Record<string, string | readonly string[]>)) {
      for (const message of typeof value === 'string' ? [value] : value) if (message) add(key, message);
    }
  }
  return out.size === 0 ? EMPTY_MESSAGES : out;
}

const signature = (messages: ReadonlyMap<string, readonly string[]>) =>
  messages.size === 0 ? '' : JSON.stringify([...messages]);

/** "now" is compared to the minute, so a parent that passes `new Date()` on each render does not re-run everything. */
const minuteOf = (date: Date) => Math.floor(date.getTime() / 60_000);

function sameContext(a: EvaluationContext, b: EvaluationContext): boolean {
  return (
    minuteOf(a.now) === minuteOf(b.now) &&
    a.timeZone === b.timeZone &&
    a.spineBandSet === b.spineBandSet &&
    (a.gender ?? null) === (b.gender ?? null) &&
    a.editable === b.editable &&
    a.operate === b.operate &&
    a.forms === b.forms &&
    a.missing === b.missing &&
    // 参考范围: a save answers the site ranges it judged by; the next evaluation must use them.
    a.referenceRanges === b.referenceRanges
  );
}

function shallowEqual(a: FormValues, b: FormValues): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && Object.is(a[key], b[key]));
}

/**
 * One form's working state outside React: the engine's verdict and values (a unit selector's choice among them,
 * kept or dropped by the engine's rule), which items the user has touched, server messages, and the page's marks
 * and recognition tags. Components subscribe to the one slice they show (useSyncExternalStore), so a keystroke
 * re-renders only the items whose state changed.
 */
export class CrfStore {
  definition!: CrfDefinition;
  context: EvaluationContext;
  state!: FormState;
  values!: FormValues;
  readonly idPrefix: string;
  private keys = new WeakMap<CrfNode, string>();
  private calculatedKeys = new Set<string>();
  private touched = new Set<string>();
  private showAll: boolean;
  private server: ReadonlyMap<string, readonly string[]>;
  /** The signature of the errors prop last applied: a re-render with the same messages does not bring back edited-away ones. */
  private errorsInput: string;
  private lastInput: FormValues;
  private lastEmitted: FormValues | null = null;
  private handlers: StoreHandlers = {};
  private marks: Readonly<Record<string, ItemMark>> = {};
  private marksInput = '';
  private recognised: ReadonlySet<string> = NONE_RECOGNISED;
  missingCodes: readonly MissingCode[] = NO_CODES;
  private listeners = new Set<() => void>();

  constructor(input: StoreInput, idPrefix: string, handlers: StoreHandlers = {}) {
    this.idPrefix = idPrefix;
    this.handlers = handlers;
    this.context = input.context;
    this.showAll = input.showAllErrors === true;
    this.server = serverMessages(input.errors);
    this.errorsInput = signature(this.server);
    this.lastInput = input.values;
    this.setMarks(input.marks);
    this.recognised = input.recognised ?? NONE_RECOGNISED;
    this.missingCodes = input.missingCodes ?? NO_CODES;
    this.load(input.definition, input.values);
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /**
   * Keeps the parent's latest callbacks; subscribers hear of it only when uploading, or opening an item's own
   * panel, becomes possible or impossible.
   */
  setHandlers(handlers: StoreHandlers) {
    const could = this.canUpload;
    const couldOpen = this.canOpenItems;
    const couldMark = this.canMarkMissing;
    this.handlers = handlers;
    if (could !== this.canUpload || couldOpen !== this.canOpenItems || couldMark !== this.canMarkMissing) {
      this.notify();
    }
  }

  get canOpenItems(): boolean {
    return this.handlers.onItemOpen !== undefined;
  }

  openItem(name: string) {
    this.handlers.onItemOpen?.(name);
  }

  /** Whether the nurse may mark items with missing-data codes here (an editable form of a study with codes). */
  get canMarkMissing(): boolean {
    return this.handlers.onMarkMissing !== undefined && this.missingCodes.length > 0;
  }

  markMissing(name: string, code: string | null) {
    this.handlers.onMarkMissing?.(name, code);
  }

  /** A mark as the form shows it in place of the value: 未查(ND); a code the study has since removed as itself. */
  missingText(code: string): string {
    const known = this.missingCodes.find((c) => c.code === code);
    return known ? `${known.label}(${code})` : code;
  }

  markOf(name: string): ItemMark | undefined {
    return this.marks[name];
  }

  isRecognised(name: string): boolean {
    return this.recognised.has(name);
  }

  confirmRecognised(name: string) {
    this.handlers.onConfirmRecognised?.(name);
  }

  /** Answers whether the marks changed. */
  private setMarks(marks: Readonly<Record<string, ItemMark>> | undefined): boolean {
    const next = marks ?? {};
    const text = JSON.stringify(Object.entries(next).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    if (text === this.marksInput) return false;
    this.marksInput = text;
    this.marks = next;
    return true;
  }

  /** The engine's state key of a node: its name, or its path for unnamed display nodes. */
  keyOf(node: CrfNode): string {
    return this.keys.get(node) ?? node.name;
  }

  /** Whether the engine fills the item (calc, or a crfRules formula): it shows as such even before it has a result. */
  isCalculated(node: CrfNode): boolean {
    return this.calculatedKeys.has(this.keyOf(node));
  }

  isShown(key: string): boolean {
    return this.showAll || this.touched.has(key);
  }

  serverErrors(key: string): readonly string[] | undefined {
    return this.server.get(key);
  }

  /** Applies new props; returns nothing and notifies subscribers only when something really changed. */
  sync(input: StoreInput) {
    let changed = false;
    let evaluated = false;
    if (input.definition !== this.definition) {
      this.context = input.context;
      this.lastInput = input.values;
      this.touched.clear();
      this.load(input.definition, input.values);
      changed = evaluated = true;
    } else {
      const contextChanged = !sameContext(input.context, this.context);
      if (contextChanged) this.context = input.context;
      let values = this.values;
      if (input.values !== this.lastInput) {
        this.lastInput = input.values;
        // The parent handing back what the form emitted (or an equal copy) is not a new record.
        if (input.values !== this.lastEmitted && !shallowEqual(input.values, this.values)) values = input.values;
      }
      if (contextChanged || values !== this.values) {
        this.apply(values);
        changed = evaluated = true;
      }
    }
    const server = serverMessages(input.errors);
    const nextSignature = signature(server);
    if (nextSignature !== this.errorsInput) {
      this.errorsInput = nextSignature;
      this.server = server;
      changed = true;
    }
    if (this.setMarks(input.marks)) changed = true;
    const recognised = input.recognised ?? NONE_RECOGNISED;
    if (recognised !== this.recognised) {
      this.recognised = recognised;
      changed = true;
    }
    const missingCodes = input.missingCodes ?? NO_CODES;
    if (missingCodes !== this.missingCodes) {
      this.missingCodes = missingCodes;
      changed = true;
    }
    if ((input.showAllErrors === true) !== this.showAll) {
      this.showAll = input.showAllErrors === true;
      changed = true;
    }
    if (changed) this.notify();
    if (evaluated) this.handlers.onEvaluate?.(this.state);
  }

  /** A user's change to a top-level value (its unit or addition text too, or a row container's whole row list). */
  setValue(name: string, value: unknown, touchedKey: string = name) {
    this.apply({ ...this.values, [name]: value }, [name]);
    this.touched.add(touchedKey);
    this.clearServer(touchedKey);
    this.emit(name);
  }

  setCell(container: string, row: number, child: string, value: unknown) {
    const rows = readRows(this.values[container]);
    if (row < 0 || row >= rows.length) return;
    const next = rows.map((current, i) => (i === row ? { ...current, [child]: value } : current));
    this.setValue(container, next, cellKey(container, row, child));
  }

  addRow(container: string) {
    this.setValue(container, [...readRows(this.values[container]), {}]);
  }

  removeRow(container: string, index: number) {
    const rows = readRows(this.values[container]);
    if (index < 0 || index >= rows.length) return;
    // Touched flags and server messages of later rows move up with their rows.
    const shift = (key: string): string | null => {
      const m = /^(.*)\[(\d+)\]\.(.*)$/.exec(key);
      if (!m || m[1] !== container) return key;
      const at = Number(m[2]);
      if (at === index) return null;
      return at > index ? cellKey(container, at - 1, m[3]!) : key;
    };
    this.touched = new Set([...this.touched].flatMap((key) => shift(key) ?? []));
    const server = new Map<string, readonly string[]>();
    for (const [key, messages] of this.server) {
      const moved = shift(key);
      if (moved !== null) server.set(moved, messages);
    }
    this.server = server.size === 0 ? EMPTY_MESSAGES : server;
    this.setValue(
      container,
      rows.filter((_, i) => i !== index),
      container,
    );
  }

  touch(key: string) {
    if (this.touched.has(key)) return;
    this.touched.add(key);
    this.notify();
  }

  upload(
    file: File,
    kind: UploadKind,
    onProgress?: (percent: number) => void,
    thumbnailOf?: string,
  ): Promise<UploadResult> {
    const handler = this.handlers.onUpload;
    if (!handler) return Promise.reject(new Error('no upload handler'));
    return thumbnailOf === undefined ? handler(file, kind, onProgress) : handler(file, kind, onProgress, thumbnailOf);
  }

  get canUpload(): boolean {
    return this.handlers.onUpload !== undefined;
  }

  private load(definition: CrfDefinition, values: FormValues) {
    this.definition = definition;
    this.keys = new WeakMap();
    this.calculatedKeys = new Set();
    for (const info of getCompiledForm(definition).nodes) {
      this.keys.set(info.node, info.key);
      if (info.calc) this.calculatedKeys.add(info.key);
    }
    this.apply(values);
  }

  private apply(input: FormValues, changed?: readonly string[]) {
    const next =
      changed && this.state
        ? evaluateForm(this.definition, input, this.context, { previous: this.state, changed })
        : evaluateForm(this.definition, input, this.context);
    this.state = next;
    this.values = next.values;
  }

  private clearServer(key: string) {
    if (!this.server.has(key)) return;
    const server = new Map(this.server);
    server.delete(key);
    this.server = server;
  }

  private emit(name: string) {
    this.lastEmitted = this.values;
    this.notify();
    this.handlers.onChange?.(this.values as Record<string, unknown>, name);
    this.handlers.onEvaluate?.(this.state);
  }

  private notify() {
    for (const listener of [...this.listeners]) listener();
  }
}

export const CrfStoreContext = createContext<CrfStore | null>(null);

export function useCrfStore(): CrfStore {
  const store = useContext(CrfStoreContext);
  if (!store) throw new Error('CRF widgets render inside <CrfForm>');
  return store;
}

/** Subscribes to one slice of the store; the selector must return a stable value while its slice is unchanged. */
export function useStoreSlice<T>(store: CrfStore, select: (store: CrfStore) => T): T {
  return useSyncExternalStore(store.subscribe, () => select(store));
}
