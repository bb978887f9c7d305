import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Col, Form, Input, Modal, Radio, Row, Select, Spin, TreeSelect } from 'antd';
import { KeyboardDatePicker } from '../../../../components/keyboard-date-picker';
import type { Rule } from 'antd/es/form';
import dayjs from 'dayjs';
import { ageFromBirth, buildTree, MSG, todayString } from '@ecrf/core';
import { GENDER, subjectApi, type Subject, type SubjectFormModel } from '../../../../api/subject.api';
import { personnelApi, type SiteRow } from '../../../../api/study.api';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { SEX_TEXT } from '../../../../locales/sex.zh-CN';
import { SUBJECT_TEXT } from '../../../../locales/subject.zh-CN';
import {
  isBirthDisabled,
  maskedFields,
  patientErrors,
  patientFieldView,
  toSubjectBody,
  type IdentifierField,
  type PatientDialogMode,
  type PatientField,
  type PatientFormValues,
} from '../patient-form';
import { displayTimeZone } from '../../../../utils/format-date';
import { queryKeys } from '../../../../api/query-keys';

export interface PatientDialogState {
  mode: PatientDialogMode;
  /** The patient to show or edit (from the patient list). */
  subjectId?: number;
  /** Or its casebook, as the CRF page knows it. */
  subjectRecordId?: number;
}

interface PatientDialogProps {
  studyId: number;
  state: PatientDialogState | null;
  /** May the caller edit patients (btn:business.subject.edit)? Decides the 编辑 button. */
  canEdit: boolean;
  /**
   * Where a new patient may go (docs/multi-centre.md): the caller's own sites, or any department for a member
   * holding 查看全部中心数据 (then the department tree, when the caller may read it). Edits keep the site.
   */
  sites?: { own: ReadonlyArray<{ deptId: number; deptName: string }>; all: boolean };
  onClose: () => void;
  onSaved?: (subject: Subject) => void;
}

const TITLES: Record<PatientDialogMode, string> = {
  add: SUBJECT_TEXT.addTitle,
  edit: SUBJECT_TEXT.editTitle,
  crflook: SUBJECT_TEXT.viewTitle,
};

const NO_SITES: ReadonlyArray<{ deptId: number; deptName: string }> = [];

const GENDER_OPTIONS = [
  { value: GENDER.male, label: SEX_TEXT.male },
  { value: GENDER.female, label: SEX_TEXT.female },
];

interface SiteNode {
  value: number;
  title: string;
  children?: SiteNode[];
}

function toSiteNodes(rows: ReadonlyArray<SiteRow & { children?: SiteRow[] }>): SiteNode[] {
  return [...rows]
    .sort((a, b) => (a.orderNum ?? 0) - (b.orderNum ?? 0))
    .map((row) => ({
      value: row.deptId,
      title: row.deptName,
      children: row.children?.length ? toSiteNodes(row.children) : undefined,
    }));
}

/** The form starts masked identifiers empty: the mask is shown as placeholder, never as a value. */
function toFormValues(subject: Subject, masked: ReadonlySet<IdentifierField>): PatientFormValues {
  const clear = <T,>(field: IdentifierField, value: T) => (masked.has(field) ? undefined : value);
  return {
    identificationCode: subject.identificationCode,
    subjectName: clear('subjectName', subject.subjectName),
    gender: subject.gender,
    birth: clear('birth', subject.birth ? dayjs(subject.birth) : null),
    mobile: clear('mobile', subject.mobile ?? undefined),
    idNumber: clear('idNumber', subject.idNumber ?? undefined),
    diseaseCode: subject.diseaseCode,
    deptId: subject.deptId ?? undefined,
  };
}

/** The unique check found the code taken (SUBJ-12); the rule below shows it under the field. */
function isOnlyCodeTaken(errorFields: ReadonlyArray<{ errors: string[] }>): boolean {
  return errorFields.length > 0 && errorFields.every((field) => field.errors.every((e) => e === MSG.codeTaken));
}

/**
 * 添加患者 / 查看患者 / 编辑患者 (SUBJ-06..SUBJ-19): fields, labels and required flags from the
 * study's base config; the rules are @ecrf/core's, so the dialog and the server say the same.
 */
export function PatientDialog({ studyId, state, canEdit, sites: siteScope, onClose, onSaved }: PatientDialogProps) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<PatientFormValues>();
  const [mode, setMode] = useState<PatientDialogMode>(state?.mode ?? 'add');
  const [stateFor, setStateFor] = useState(state);
  // Codes the unique check found taken; read by the code's rule when it validates.
  const takenCodes = useRef(new Set<string>());
  const open = Boolean(state);
  if (stateFor !== state) {
    setStateFor(state);
    setMode(state?.mode ?? 'add');
  }
  const today = todayString(new Date(), displayTimeZone());

  const model = useQuery({
    queryKey: queryKeys.subject.formModel(studyId),
    enabled: open,
    queryFn: () => subjectApi.formModel(studyId).then((res) => res.data),
  });
  const subjectId = state?.subjectId;
  const subjectRecordId = state?.subjectRecordId;
  const subject = useQuery({
    queryKey: queryKeys.subject.detail(subjectId, subjectRecordId),
    enabled: open && state?.mode !== 'add' && (subjectId !== undefined || subjectRecordId !== undefined),
    queryFn: () =>
      (subjectId !== undefined ? subjectApi.get(subjectId) : subjectApi.byRecord(subjectRecordId!)).then(
        (res) => res.data,
      ),
  });
  const ownSites = siteScope?.own ?? NO_SITES;
  const sites = useQuery({
    queryKey: queryKeys.studyPersonnel.sites(),
    enabled: open && (siteScope?.all ?? true),
    retry: false,
    queryFn: () => personnelApi.sites().then((res) => res.data),
  });
  const siteTree = useMemo(
    () => toSiteNodes(buildTree(sites.data ?? [], (row) => row.deptId) as Array<SiteRow & { children?: SiteRow[] }>),
    [sites.data],
  );

  // The patient is filled in once per opening: a background refetch must not undo typing.
  const filledFor = useRef<PatientDialogState | null>(null);
  useEffect(() => {
    if (!state) return;
    takenCodes.current = new Set();
    form.resetFields();
    filledFor.current = null;
    if (state.mode === 'add' && ownSites[0]) form.setFieldValue('deptId', ownSites[0].deptId);
  }, [state, form, ownSites]);
  useEffect(() => {
    if (!state || state.mode === 'add' || !subject.data || filledFor.current === state) return;
    filledFor.current = state;
    form.setFieldsValue(toFormValues(subject.data, maskedFields(subject.data)));
  }, [state, subject.data, form]);

  const masked = useMemo(
    () => (mode === 'add' ? new Set<IdentifierField>() : maskedFields(subject.data)),
    [mode, subject.data],
  );
  const birth = Form.useWatch('birth', form);
  // A masked birth date is not in the form: the server's age stands until a new date is picked.
  const age = birth
    ? ageFromBirth(birth.format('YYYY-MM-DD'), today)
    : masked.has('birth')
      ? (subject.data?.age ?? null)
      : null;

  const save = useMutation({
    mutationFn: ({ values, formModel }: { values: PatientFormValues; formModel: SubjectFormModel }) =>
      mode === 'add'
        ? subjectApi.add({ studyId, ...toSubjectBody(values, formModel) })
        : subjectApi.update({
            id: subject.data!.id,
            ...toSubjectBody(values, formModel, subject.data!.identificationCode, masked),
          }),
    onSuccess: (res) => {
      void message.success(res.msg || MSG.ok);
      void queryClient.invalidateQueries({ queryKey: queryKeys.subject.all() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.subjectRecord.all() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.studyIndex.all() });
      onSaved?.(res.data);
      onClose();
    },
    onError: (error) => {
      // platform §4 (SUBJ-10): a failed save is only logged and the dialog closes; the request
      // wrapper has already shown the server's message.
      console.error('patient save failed', error);
      onClose();
    },
  });

  const formModel = model.data;
  const viewing = mode === 'crflook';
  /** Placeholder and hint of a field that came masked. */
  const maskedProps = (name: IdentifierField, fallback: string) =>
    masked.has(name) ? { placeholder: String(subject.data?.[name] ?? '') } : { placeholder: fallback };
  const maskedExtra = (name: IdentifierField) => (masked.has(name) && !viewing ? SUBJECT_TEXT.maskedHint : undefined);
  const field = (name: PatientField) =>
    formModel ? patientFieldView(formModel, mode, name) : { label: '', shown: false, required: false };

  /** An antd rule that shows core's message for one field, judged on the whole form as the server does. */
  const coreRule =
    (name: PatientField): Rule =>
    ({ getFieldsValue }) => ({
      validator: async () => {
        if (!formModel) return;
        const broken = patientErrors(getFieldsValue(true) as PatientFormValues, formModel, today, masked)[name];
        if (broken) throw new Error(broken);
      },
    });
  /** 出生日期, 手机号, 身份证号: shown, named and required as the study configures them, masked as the server sent them. */
  const identifierItem = (name: Exclude<IdentifierField, 'subjectName'>, input: ReactNode) =>
    field(name).shown && (
      <Col span={12}>
        <Form.Item
          label={field(name).label}
          name={name}
          required={field(name).required}
          rules={[coreRule(name)]}
          extra={maskedExtra(name)}
        >
          {input}
        </Form.Item>
      </Col>
    );
  const takenRule: Rule = {
    validator: async (_rule, value: string | undefined) => {
      if (mode === 'add' && value && takenCodes.current.has(value.trim())) throw new Error(MSG.codeTaken);
    },
  };

  /** SUBJ-12: in add mode the code is checked against the study when the field is left. */
  const checkCode = async (): Promise<void> => {
    const code = (form.getFieldValue('identificationCode') as string | undefined)?.trim();
    if (mode !== 'add' || !code || formModel?.enableSerialNumber) return;
    const taken = await subjectApi
      .isCodeTaken(studyId, code)
      .then((res) => res.data)
      .catch(() => false);
    if (taken) {
      takenCodes.current.add(code);
      await form.validateFields(['identificationCode']).catch(() => undefined);
    }
  };

  const submit = async () => {
    if (!formModel) return;
    if (mode === 'add') await checkCode();
    try {
      const values = await form.validateFields();
      save.mutate({ values, formModel });
    } catch (error) {
      const errorFields = (error as { errorFields?: Array<{ errors: string[] }> }).errorFields ?? [];
      // SUBJ-19: the messages stand under their fields; the summary tells what to do.
      if (!isOnlyCodeTaken(errorFields)) void message.error(MSG.fillRequired);
    }
  };

  const loading = model.isLoading || (mode !== 'add' && subject.isLoading);
  const code = field('identificationCode');
  const codeLocked = viewing || Boolean(formModel?.enableSerialNumber);

  const footer = [
    <Button key="cancel" onClick={onClose}>
      {COMMON_TEXT.cancel}
    </Button>,
    viewing && canEdit ? (
      <Button key="edit" onClick={() => setMode('edit')}>
        {SUBJECT_TEXT.edit}
      </Button>
    ) : null,
    <Button
      key="ok"
      type="primary"
      loading={save.isPending}
      disabled={loading}
      onClick={() => (viewing ? onClose() : void submit())}
    >
      {COMMON_TEXT.ok}
    </Button>,
  ];

  return (
    <Modal
      open={open}
      title={TITLES[mode]}
      onCancel={onClose}
      width={760}
      destroyOnHidden
      // A stray click beside the dialog must not throw away what was typed.
      mask={{ closable: viewing }}
      footer={footer}
    >
      <Spin spinning={loading}>
        {formModel?.enableSerialNumber && mode === 'add' && (
          <Alert
            type="info"
            showIcon
            style={{ marginBottom: 16 }}
            title={SUBJECT_TEXT.serialNote(formModel.serialPreview)}
          />
        )}
        <Form
          form={form}
          name="patient-dialog"
          labelCol={{ flex: '96px' }}
          wrapperCol={{ flex: 1 }}
          labelWrap
          disabled={viewing}
          autoComplete="off"
        >
          {formModel && (
            <Row gutter={16}>
              {code.shown && (
                <Col span={12}>
                  <Form.Item
                    label={code.label}
                    name="identificationCode"
                    required={code.required}
                    rules={codeLocked ? [] : [coreRule('identificationCode'), takenRule]}
                    extra={formModel.enableSerialNumber && mode === 'edit' ? SUBJECT_TEXT.codeLocked : undefined}
                  >
                    <Input
                      maxLength={50}
                      disabled={codeLocked}
                      placeholder={code.label}
                      onBlur={() => void checkCode()}
                    />
                  </Form.Item>
                </Col>
              )}
              <Col span={12}>
                <Form.Item
                  label={field('subjectName').label}
                  name="subjectName"
                  required
                  rules={[coreRule('subjectName')]}
                  extra={maskedExtra('subjectName')}
                >
                  <Input maxLength={50} {...maskedProps('subjectName', field('subjectName').label)} />
                </Form.Item>
              </Col>
              <Col span={12}>
                <Form.Item label={field('gender').label} name="gender" required rules={[coreRule('gender')]}>
                  <Radio.Group options={GENDER_OPTIONS} />
                </Form.Item>
              </Col>
              {identifierItem(
                'birth',
                <KeyboardDatePicker
                  style={{ width: '100%' }}
                  {...maskedProps('birth', COMMON_TEXT.selectPlaceholder)}
                  disabledDate={(date) => isBirthDisabled(date, today)}
                />,
              )}
              {field('age').shown && (
                <Col span={12}>
                  <Form.Item label={field('age').label}>
                    <Input
                      aria-label={field('age').label}
                      readOnly
                      disabled
                      value={age === null ? '' : String(age)}
                      suffix={SUBJECT_TEXT.ageUnit}
                    />
                  </Form.Item>
                </Col>
              )}
              {identifierItem(
                'mobile',
                <Input maxLength={11} inputMode="numeric" {...maskedProps('mobile', field('mobile').label)} />,
              )}
              {identifierItem(
                'idNumber',
                <Input maxLength={18} {...maskedProps('idNumber', field('idNumber').label)} />,
              )}
              <Col span={12}>
                <Form.Item
                  label={field('diseaseCode').label}
                  name="diseaseCode"
                  required
                  rules={[coreRule('diseaseCode')]}
                >
                  <Select
                    placeholder={COMMON_TEXT.selectPlaceholder}
                    options={formModel.diseases.map((d) => ({ value: d.diseaseCode, label: d.diseaseName }))}
                  />
                </Form.Item>
              </Col>
              {mode === 'add' && (siteScope?.all ?? true) && siteTree.length > 0 ? (
                <Col span={12}>
                  <Form.Item label={SUBJECT_TEXT.dept} name="deptId" extra={SUBJECT_TEXT.deptHint}>
                    <TreeSelect
                      allowClear
                      treeDefaultExpandAll
                      treeData={siteTree}
                      placeholder={COMMON_TEXT.selectPlaceholder}
                    />
                  </Form.Item>
                </Col>
              ) : mode === 'add' && ownSites.length > 0 ? (
                <Col span={12}>
                  <Form.Item
                    label={SUBJECT_TEXT.dept}
                    name="deptId"
                    rules={[{ required: true, message: SUBJECT_TEXT.siteRequired }]}
                    extra={ownSites.length > 1 ? SUBJECT_TEXT.siteChoiceHint : undefined}
                  >
                    <Select
                      disabled={ownSites.length === 1}
                      options={ownSites.map((site) => ({ value: site.deptId, label: site.deptName }))}
                    />
                  </Form.Item>
                </Col>
              ) : (
                mode !== 'add' &&
                subject.data?.deptName && (
                  <Col span={12}>
                    <Form.Item
                      label={SUBJECT_TEXT.dept}
                      extra={mode === 'edit' ? SUBJECT_TEXT.siteMoveHint : undefined}
                    >
                      <Input aria-label={SUBJECT_TEXT.dept} disabled value={subject.data.deptName} />
                    </Form.Item>
                  </Col>
                )
              )}
            </Row>
          )}
        </Form>
      </Spin>
    </Modal>
  );
}
