import { useEffect } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Button, DatePicker, Form, Input, Modal, Popconfirm, Select, Switch } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { Link } from 'react-router';
import {
  CALENDAR_NOTE_MAX,
  CALENDAR_REMIND_CHOICES,
  CALENDAR_TITLE_MAX,
  instantOfWallClock,
  nowString,
  type CalendarEventInput,
} from '@ecrf/core';
import { eventsApi, type CalendarEvent } from '../../../api/events.api';
import { queryKeys } from '../../../api/query-keys';
import { CALENDAR_TEXT } from '../../../locales/calendar.zh-CN';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { PatientSelect } from './patient-select';

const C = CALENDAR_TEXT;
const NO_REMINDER = -1;

interface FormValues {
  title: string;
  allDay: boolean;
  times?: [Dayjs, Dayjs];
  dates?: [Dayjs, Dayjs];
  remindBefore: number;
  note?: string;
  subjectId?: number | null;
}

/** What the dialog opens on: a new event on a day, or an existing one. */
export type EventDialogTarget = { kind: 'new'; day: string } | { kind: 'edit'; event: CalendarEvent } | null;

/** An instant as the study zone's wall clock, in a picker value (the picker itself knows no zones). */
const wall = (iso: string, zone: string) => dayjs(nowString(new Date(iso), zone));

function initialValues(target: Exclude<EventDialogTarget, null>, zone: string): FormValues {
  if (target.kind === 'new') {
    const day = dayjs(target.day);
    return {
      title: '',
      allDay: false,
      times: [day.hour(9), day.hour(10)],
      dates: [day, day],
      remindBefore: 15,
      subjectId: null,
    };
  }
  const e = target.event;
  const start = e.allDay ? dayjs(e.startDate) : wall(e.startTime, zone);
  return {
    title: e.title,
    allDay: e.allDay,
    times: e.allDay ? [start.hour(9), start.hour(10)] : [start, wall(e.endTime, zone)],
    dates: e.allDay ? [dayjs(e.startDate), dayjs(e.endDate ?? e.startDate)] : [start, start],
    remindBefore: e.remindBefore ?? NO_REMINDER,
    note: e.note ?? undefined,
    subjectId: e.subjectId,
  };
}

function toInput(values: FormValues, zone: string): CalendarEventInput {
  const common = {
    title: values.title.trim(),
    note: values.note?.trim() || null,
    remindBefore: values.remindBefore === NO_REMINDER ? null : values.remindBefore,
    subjectId: values.subjectId ?? null,
  };
  if (values.allDay) {
    const [from, to] = values.dates!;
    return { ...common, allDay: true, startDate: from.format('YYYY-MM-DD'), endDate: to.format('YYYY-MM-DD') };
  }
  const [from, to] = values.times!;
  const instant = (d: Dayjs) => instantOfWallClock(d.format('YYYY-MM-DD'), d.format('HH:mm'), zone).toISOString();
  return { ...common, allDay: false, startTime: instant(from), endTime: instant(to) };
}

/** 新增日程 / 编辑日程: the user's own event, with its reminder; 删除 after confirmation. */
export function EventDialog({
  studyId,
  zone,
  target,
  onClose,
}: {
  studyId: number;
  zone: string;
  target: EventDialogTarget;
  onClose: () => void;
}) {
  const [form] = Form.useForm<FormValues>();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const allDay = Form.useWatch('allDay', form);
  const subjectId = Form.useWatch('subjectId', form);
  const editing = target?.kind === 'edit' ? target.event : null;

  // The dialog's content is made anew at each opening (destroyOnHidden): it starts from the event or the day.
  useEffect(() => {
    if (!target) return;
    form.resetFields();
    form.setFieldsValue(initialValues(target, zone));
  }, [target, zone, form]);

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.calendar.all() });
  };
  const save = useMutation({
    mutationFn: (values: FormValues) =>
      editing
        ? eventsApi.update(studyId, editing.id, toInput(values, zone))
        : eventsApi.create(studyId, toInput(values, zone)),
    onSuccess: () => {
      message.success(C.saved);
      refresh();
      onClose();
    },
  });
  const remove = useMutation({
    mutationFn: (id: number) => eventsApi.remove(studyId, id),
    onSuccess: () => {
      message.success(C.deleted);
      refresh();
      onClose();
    },
  });

  const remindOptions = [
    { value: NO_REMINDER, label: C.remindNone },
    ...CALENDAR_REMIND_CHOICES.map((m) => ({ value: m, label: C.remindAt(m) })),
  ];

  return (
    <Modal
      open={target !== null}
      title={editing ? C.edit : C.add}
      onCancel={onClose}
      // Closed, the dialog is taken out of the page: kept hidden, a button's loading icon still leaving when the
      // dialog hid kept its unfinished animation into the next opening.
      destroyOnHidden
      footer={[
        editing && (
          <Popconfirm
            key="delete"
            title={C.deleteConfirm}
            okText={COMMON_TEXT.ok}
            cancelText={COMMON_TEXT.cancel}
            onConfirm={() => remove.mutate(editing.id)}
          >
            <Button danger loading={remove.isPending} style={{ float: 'left' }}>
              {C.delete}
            </Button>
          </Popconfirm>
        ),
        <Button key="cancel" onClick={onClose}>
          {COMMON_TEXT.cancel}
        </Button>,
        <Button key="ok" type="primary" loading={save.isPending} onClick={() => form.submit()}>
          {COMMON_TEXT.ok}
        </Button>,
      ]}
    >
      <Form form={form} layout="vertical" onFinish={(values) => save.mutate(values)}>
        <Form.Item
          name="title"
          label={C.fieldTitle}
          rules={[{ required: true, whitespace: true, message: C.titleRequired }]}
        >
          <Input maxLength={CALENDAR_TITLE_MAX} showCount />
        </Form.Item>
        <Form.Item name="allDay" label={C.fieldAllDay} valuePropName="checked">
          <Switch />
        </Form.Item>
        {allDay ? (
          <Form.Item name="dates" label={C.fieldDate} rules={[{ required: true, message: C.dateRequired }]}>
            <DatePicker.RangePicker style={{ width: '100%' }} />
          </Form.Item>
        ) : (
          <Form.Item name="times" label={C.fieldTime} rules={[{ required: true, message: C.timeRequired }]}>
            <DatePicker.RangePicker
              showTime={{ format: 'HH:mm' }}
              format="YYYY-MM-DD HH:mm"
              style={{ width: '100%' }}
            />
          </Form.Item>
        )}
        <Form.Item
          name="subjectId"
          label={C.fieldPatient}
          extra={
            editing?.subject && editing.subject.subjectId === subjectId ? (
              <Link to={`/crf/${editing.subject.subjectRecordId}`} onClick={onClose}>
                {C.openCasebook}
              </Link>
            ) : undefined
          }
        >
          <PatientSelect studyId={studyId} current={editing?.subject ?? null} />
        </Form.Item>
        <Form.Item name="remindBefore" label={C.fieldRemind}>
          <Select options={remindOptions} />
        </Form.Item>
        <Form.Item name="note" label={C.fieldNote}>
          <Input.TextArea maxLength={CALENDAR_NOTE_MAX} showCount rows={3} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
