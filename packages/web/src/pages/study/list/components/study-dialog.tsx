import { Col, Form, Input, Row, Typography } from 'antd';
import { queryKeys } from '../../../../api/query-keys';
import { STUDY_STATUS, studyApi, type Study, type StudyBody } from '../../../../api/study.api';
import { FormDialog } from '../../../../components/form-dialog';
import { useSaveMutation } from '../../../../components/table-page';
import { STUDY_TEXT } from '../../../../locales/study.zh-CN';
import { STUDY_MANAGE_TEXT } from '../../../../locales/study-manage.zh-CN';
import { StudyIdentityFields } from '../../components/study-identity-fields';
import { useOpenCount } from '../../components/use-open-count';

export interface StudyDialogState {
  mode: 'add' | 'edit';
  study?: Study;
}

type StudyFields = Required<Pick<StudyBody, 'studyName' | 'studyCode'>> &
  Pick<StudyBody, 'description' | 'principal' | 'status' | 'reason'>;

/** 新增项目 / 修改项目: the study's identity; everything else is set on 项目配置. */
function StudyDialogBody({ state, onClose }: { state: StudyDialogState | null; onClose: () => void }) {
  const [form] = Form.useForm<StudyFields>();
  const editing = state?.mode === 'edit' ? state.study : undefined;

  const save = useSaveMutation({
    editing: Boolean(editing),
    create: (body: StudyFields) => studyApi.add(body),
    update: (body: StudyFields) => studyApi.update({ ...body, id: editing!.id }),
    invalidate: [queryKeys.study.all()],
    onSuccess: onClose,
  });

  const submit = (values: StudyFields) => {
    const body: StudyFields = {
      ...values,
      studyName: values.studyName.trim(),
      studyCode: values.studyCode.trim(),
    };
    // A new study starts as 进行中; the status is changed later, when editing.
    if (!editing) delete body.status;
    save.mutate(body);
  };

  return (
    <FormDialog
      open={Boolean(state)}
      title={editing ? STUDY_MANAGE_TEXT.editTitle : STUDY_MANAGE_TEXT.addTitle}
      width={640}
      form={form}
      name="study-dialog"
      labelWidth="84px"
      initialValues={
        editing
          ? {
              studyName: editing.studyName,
              studyCode: editing.studyCode,
              description: editing.description,
              principal: editing.principal,
              status: editing.status,
            }
          : { status: STUDY_STATUS.ongoing }
      }
      saving={save.isPending}
      onSave={submit}
      onClose={onClose}
      note={!editing && <Typography.Text type="secondary">{STUDY_MANAGE_TEXT.creatorNote}</Typography.Text>}
    >
      <Row gutter={16}>
        <StudyIdentityFields placeholders storedStatus={editing?.status} />
        <Col span={24}>
          <Form.Item label={STUDY_TEXT.description} name="description">
            <Input.TextArea maxLength={500} showCount rows={3} placeholder={STUDY_TEXT.description} />
          </Form.Item>
        </Col>
      </Row>
    </FormDialog>
  );
}

/** The dialog's body mounts afresh at each opening, with a new form holding its initial values. */
export function StudyDialog(props: Parameters<typeof StudyDialogBody>[0]) {
  const opened = useOpenCount(Boolean(props.state));
  return <StudyDialogBody key={opened} {...props} />;
}
