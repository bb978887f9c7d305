import { useEffect, useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Col,
  Form,
  Input,
  InputNumber,
  Radio,
  Row,
  Select,
  Space,
  Switch,
  Upload,
  type FormInstance,
} from 'antd';
import { DeleteOutlined, PlusOutlined, UploadOutlined } from '@ant-design/icons';
import { RANDOMIZATION_METHOD_LABELS, RANDOMIZATION_METHODS } from '@ecrf/core';
import { queryKeys } from '../../../../api/query-keys';
import { randomizationApi, type RandomizationConfigView } from '../../../../api/randomization.api';
import { crfApi } from '../../../../api/study.api';
import { RANDOMIZATION_TEXT } from '../../../../locales/randomization.zh-CN';
import { checkForm, fromConfig, strataCount, toConfig, type ConfigFormValues } from '../config-form';

const t = RANDOMIZATION_TEXT;
const METHOD_OPTIONS = RANDOMIZATION_METHODS.map((m) => ({ value: m, label: RANDOMIZATION_METHOD_LABELS[m] }));

/** One factor: its source (site or a CRF item), its levels and (minimization) its weight. */
function FactorCard({
  form,
  name,
  remove,
  depts,
  crfs,
  minimization,
}: {
  form: FormInstance<ConfigFormValues>;
  name: number;
  remove: () => void;
  depts: Array<{ value: string; label: string }>;
  crfs: Array<{ value: number; label: string }>;
  minimization: boolean;
}) {
  const source = Form.useWatch(['factors', name, 'source'], form) as 'dept' | 'item' | undefined;
  const label = Form.useWatch(['factors', name, 'label'], form) as string | undefined;
  return (
    <Card
      size="small"
      className="rand-factor"
      title={label || t.factorN(name + 1)}
      extra={
        <Button type="text" danger size="small" icon={<DeleteOutlined aria-hidden />} onClick={remove}>
          {t.removeFactor}
        </Button>
      }
    >
      <Row gutter={12}>
        <Col xs={24} md={6}>
          <Form.Item name={[name, 'label']} label={t.factorLabel} rules={[{ required: true, message: t.required }]}>
            <Input maxLength={50} />
          </Form.Item>
        </Col>
        <Col xs={24} md={5}>
          <Form.Item
            name={[name, 'key']}
            label={t.factorKey}
            tooltip={t.factorKeyHint}
            rules={[
              { required: true, message: t.required },
              { pattern: /^[A-Za-z0-9_]+$/, message: t.factorKeyHint },
            ]}
          >
            <Input maxLength={30} />
          </Form.Item>
        </Col>
        <Col xs={24} md={7}>
          <Form.Item name={[name, 'source']} label={t.factorSource}>
            <Radio.Group
              optionType="button"
              options={[
                { value: 'dept', label: t.sourceDept },
                { value: 'item', label: t.sourceItem },
              ]}
            />
          </Form.Item>
        </Col>
        {minimization && (
          <Col xs={24} md={6}>
            <Form.Item name={[name, 'weight']} label={t.weight}>
              <InputNumber min={0.1} max={100} step={0.5} style={{ width: '100%' }} />
            </Form.Item>
          </Col>
        )}
      </Row>
      {source === 'item' && (
        <Row gutter={12}>
          <Col xs={24} md={12}>
            <Form.Item name={[name, 'crfId']} label={t.itemCrf} rules={[{ required: true, message: t.required }]}>
              <Select options={crfs} showSearch optionFilterProp="label" />
            </Form.Item>
          </Col>
          <Col xs={24} md={12}>
            <Form.Item
              name={[name, 'itemName']}
              label={t.itemName}
              tooltip={t.itemNameHint}
              rules={[{ required: true, message: t.required }]}
            >
              <Input maxLength={100} />
            </Form.Item>
          </Col>
        </Row>
      )}
      <Form.List name={[name, 'levels']}>
        {(levels, { add, remove: removeLevel }) => (
          <div className="rand-levels">
            {levels.map((level) => (
              <Space key={level.key} align="start" wrap className="rand-level">
                <Form.Item
                  name={[level.name, 'code']}
                  label={t.levelCode}
                  rules={[{ required: true, message: t.required }]}
                >
                  <Input maxLength={20} style={{ width: 90 }} />
                </Form.Item>
                <Form.Item
                  name={[level.name, 'label']}
                  label={t.levelLabel}
                  rules={[{ required: true, message: t.required }]}
                >
                  <Input maxLength={50} style={{ width: 140 }} />
                </Form.Item>
                {source === 'dept' ? (
                  <Form.Item name={[level.name, 'values']} label={t.levelDepts}>
                    <Select mode="multiple" options={depts} style={{ minWidth: 220 }} optionFilterProp="label" />
                  </Form.Item>
                ) : (
                  <>
                    <Form.Item name={[level.name, 'values']} label={t.levelValues} tooltip={t.levelValuesHint}>
                      <Input style={{ width: 140 }} />
                    </Form.Item>
                    <Form.Item name={[level.name, 'min']} label={t.levelMin}>
                      <InputNumber style={{ width: 90 }} />
                    </Form.Item>
                    <Form.Item name={[level.name, 'max']} label={t.levelMax}>
                      <InputNumber style={{ width: 90 }} />
                    </Form.Item>
                  </>
                )}
                <Button
                  type="text"
                  aria-label={t.removeLevel}
                  icon={<DeleteOutlined aria-hidden />}
                  disabled={levels.length <= 2}
                  onClick={() => removeLevel(level.name)}
                  className="rand-level-remove"
                />
              </Space>
            ))}
            <Button
              type="dashed"
              size="small"
              icon={<PlusOutlined aria-hidden />}
              onClick={() => add({ code: `L${levels.length + 1}`, label: '' })}
            >
              {t.addLevel}
            </Button>
          </div>
        )}
      </Form.List>
    </Card>
  );
}

/**
 * 随机化配置: arms and ratio, blinding, the method with its block sizes, strata or minimization factors, the list
 * length, eligibility, an uploaded list; saving makes a new version (with a reason once a patient is randomized).
 */
export function ConfigForm({ studyId, view }: { studyId: number; view: RandomizationConfigView }) {
  const [form] = Form.useForm<ConfigFormValues>();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<string[]>([]);
  const [list, setList] = useState<{ name: string; text: string } | null>(null);
  const [reason, setReason] = useState('');
  const method = Form.useWatch('method', form);
  const factors = Form.useWatch('factors', form);

  const depts = useQuery({
    queryKey: queryKeys.randomization.depts(studyId),
    queryFn: () => randomizationApi.factorDepts(studyId).then((res) => res.data),
  });
  const crfs = useQuery({
    queryKey: queryKeys.crf.options(studyId),
    queryFn: () => crfApi.options(studyId).then((res) => res.data),
  });
  const deptOptions = useMemo(
    () => (depts.data ?? []).map((d) => ({ value: String(d.deptId), label: d.deptName })),
    [depts.data],
  );
  const crfOptions = useMemo(() => (crfs.data ?? []).map((c) => ({ value: c.id, label: c.title })), [crfs.data]);

  const initial = useMemo(() => fromConfig(view.config), [view.config]);
  useEffect(() => form.setFieldsValue(initial), [form, initial]);

  const save = useMutation({
    mutationFn: (values: ConfigFormValues) =>
      randomizationApi.save({
        studyId,
        config: toConfig(values),
        listCsv: list?.text ?? null,
        reason: view.locked ? reason.trim() : null,
      }),
    onSuccess: (res) => {
      message.success(t.saved(res.data.version, res.data.slots));
      setList(null);
      setReason('');
      void queryClient.invalidateQueries({ queryKey: queryKeys.randomization.all() });
    },
  });

  const submit = async () => {
    const values = await form.validateFields();
    const problems = checkForm(values);
    if (view.locked && !reason.trim()) problems.unshift(t.reasonRequired);
    setErrors(problems);
    if (problems.length === 0) save.mutate(values);
  };

  const blocks = method === 'block' || method === 'stratified_block';
  const usesFactors = method === 'stratified_block' || method === 'minimization';
  const strata = strataCount({ method: method ?? 'simple', factors: factors ?? [] });

  return (
    <Form form={form} layout="vertical" initialValues={initial} className="rand-config" name="rand-config">
      {view.locked && (
        <Alert type="warning" showIcon className="rand-alert" title={t.lockedHint(view.randomizedCount)} />
      )}
      <Row gutter={16}>
        <Col xs={24} md={10}>
          <Form.Item name="method" label={t.method}>
            <Select options={METHOD_OPTIONS} />
          </Form.Item>
        </Col>
        <Col xs={12} md={4}>
          <Form.Item name="blinded" label={t.blinded} valuePropName="checked">
            <Switch checkedChildren={t.blindYes} unCheckedChildren={t.blindNo} />
          </Form.Item>
        </Col>
        {blocks && (
          <>
            <Col xs={12} md={5}>
              <Form.Item
                name="blockSizes"
                label={t.blockSizes}
                tooltip={t.blockSizesHint}
                rules={[{ required: true, message: t.required }]}
              >
                <Input />
              </Form.Item>
            </Col>
            <Col xs={12} md={5}>
              <Form.Item name="listLength" label={t.listLength} tooltip={t.listLengthHint}>
                <InputNumber min={1} max={10000} style={{ width: '100%' }} />
              </Form.Item>
            </Col>
          </>
        )}
      </Row>

      <h3 className="rand-section">{t.arms}</h3>
      <Form.List name="arms">
        {(arms, { add, remove }) => (
          <>
            {arms.map((arm) => (
              <Space key={arm.key} align="start" wrap>
                <Form.Item
                  name={[arm.name, 'code']}
                  label={t.armCode}
                  rules={[{ required: true, message: t.required }]}
                >
                  <Input maxLength={20} style={{ width: 100 }} />
                </Form.Item>
                <Form.Item
                  name={[arm.name, 'label']}
                  label={t.armLabel}
                  rules={[{ required: true, message: t.required }]}
                >
                  <Input maxLength={50} style={{ width: 180 }} />
                </Form.Item>
                <Form.Item name={[arm.name, 'ratio']} label={t.armRatio}>
                  <InputNumber min={1} max={10} style={{ width: 90 }} />
                </Form.Item>
                <Button
                  type="text"
                  aria-label={t.removeArm}
                  icon={<DeleteOutlined aria-hidden />}
                  disabled={arms.length <= 2}
                  onClick={() => remove(arm.name)}
                  className="rand-level-remove"
                />
              </Space>
            ))}
            <div>
              <Button
                type="dashed"
                size="small"
                icon={<PlusOutlined aria-hidden />}
                disabled={arms.length >= 6}
                onClick={() => add({ code: String.fromCharCode(65 + arms.length), label: '', ratio: 1 })}
              >
                {t.addArm}
              </Button>
            </div>
          </>
        )}
      </Form.List>

      {usesFactors && (
        <>
          <h3 className="rand-section">
            {method === 'minimization' ? t.minFactors : t.strataFactors}
            {method === 'stratified_block' && <span className="rand-muted">{t.strataCount(strata)}</span>}
          </h3>
          {method === 'minimization' && (
            <Row gutter={16}>
              <Col xs={24} md={8}>
                <Form.Item name="imbalance" label={t.imbalance}>
                  <Radio.Group
                    optionType="button"
                    options={[
                      { value: 'range', label: t.range },
                      { value: 'variance', label: t.variance },
                    ]}
                  />
                </Form.Item>
              </Col>
              <Col xs={24} md={8}>
                <Form.Item name="p" label={t.probability} tooltip={t.probabilityHint}>
                  <InputNumber min={0.5} max={1} step={0.05} style={{ width: '100%' }} />
                </Form.Item>
              </Col>
            </Row>
          )}
          <Form.List name="factors">
            {(items, { add, remove }) => (
              <>
                {items.map((item) => (
                  <FactorCard
                    key={item.key}
                    form={form}
                    name={item.name}
                    remove={() => remove(item.name)}
                    depts={deptOptions}
                    crfs={crfOptions}
                    minimization={method === 'minimization'}
                  />
                ))}
                <Space wrap>
                  <Button
                    icon={<PlusOutlined aria-hidden />}
                    onClick={() =>
                      add({
                        key: items.length === 0 ? 'site' : `f${items.length + 1}`,
                        label: items.length === 0 ? t.sourceDept : '',
                        source: 'dept',
                        weight: 1,
                        levels: (depts.data ?? []).slice(0, 2).map((d, i) => ({
                          code: `S${i + 1}`,
                          label: d.deptName,
                          values: [String(d.deptId)],
                        })),
                      })
                    }
                  >
                    {t.addDeptFactor}
                  </Button>
                  <Button
                    icon={<PlusOutlined aria-hidden />}
                    onClick={() =>
                      add({
                        key: `f${items.length + 1}`,
                        label: '',
                        source: 'item',
                        weight: 1,
                        levels: [
                          { code: 'L1', label: '' },
                          { code: 'L2', label: '' },
                        ],
                      })
                    }
                  >
                    {t.addItemFactor}
                  </Button>
                </Space>
              </>
            )}
          </Form.List>
        </>
      )}

      <h3 className="rand-section">{t.eligibility}</h3>
      <Form.Item name="eligibilityCrfIds" label={t.eligibilityCrfs} tooltip={t.eligibilityCrfsHint}>
        <Select mode="multiple" options={crfOptions} optionFilterProp="label" />
      </Form.Item>
      <Form.List name="eligibilityItems">
        {(items, { add, remove }) => (
          <>
            {items.map((item) => (
              <Space key={item.key} align="start" wrap>
                <Form.Item
                  name={[item.name, 'crfId']}
                  label={t.itemCrf}
                  rules={[{ required: true, message: t.required }]}
                >
                  <Select options={crfOptions} style={{ width: 200 }} optionFilterProp="label" showSearch />
                </Form.Item>
                <Form.Item
                  name={[item.name, 'itemName']}
                  label={t.itemName}
                  rules={[{ required: true, message: t.required }]}
                >
                  <Input style={{ width: 160 }} />
                </Form.Item>
                <Form.Item
                  name={[item.name, 'values']}
                  label={t.requiredValues}
                  tooltip={t.levelValuesHint}
                  rules={[{ required: true, message: t.required }]}
                >
                  <Input style={{ width: 160 }} />
                </Form.Item>
                <Button
                  type="text"
                  aria-label={t.removeCondition}
                  icon={<DeleteOutlined aria-hidden />}
                  onClick={() => remove(item.name)}
                  className="rand-level-remove"
                />
              </Space>
            ))}
            <div>
              <Button type="dashed" size="small" icon={<PlusOutlined aria-hidden />} onClick={() => add({})}>
                {t.addCondition}
              </Button>
            </div>
          </>
        )}
      </Form.List>

      {method !== 'minimization' && (
        <>
          <h3 className="rand-section">{t.upload}</h3>
          <p className="rand-muted">{t.uploadHint}</p>
          <Space wrap>
            <Upload
              accept=".csv,text/csv"
              showUploadList={false}
              beforeUpload={(file) => {
                void file.text().then((text) => setList({ name: file.name, text }));
                return false;
              }}
            >
              <Button icon={<UploadOutlined aria-hidden />}>{t.chooseCsv}</Button>
            </Upload>
            {list && (
              <span>
                {t.chosen(list.name)}{' '}
                <Button type="link" size="small" onClick={() => setList(null)}>
                  {t.clearCsv}
                </Button>
              </span>
            )}
          </Space>
        </>
      )}

      {view.locked && (
        <Form.Item label={t.reason} required className="rand-reason">
          <Input.TextArea
            aria-label={t.reason}
            value={reason}
            maxLength={500}
            rows={2}
            onChange={(e) => setReason(e.target.value)}
          />
        </Form.Item>
      )}
      {errors.length > 0 && (
        <Alert
          type="error"
          showIcon
          className="rand-alert"
          title={t.configErrors}
          description={
            <ul className="rand-errors">
              {errors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          }
        />
      )}
      <div className="rand-actions">
        <Button type="primary" loading={save.isPending} onClick={() => void submit()}>
          {view.configured ? t.saveVersion : t.save}
        </Button>
      </div>
    </Form>
  );
}
