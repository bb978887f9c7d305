/**
 * Messages of the CRF engine. The first two are the spec's (forms §5); the spec names the other
 * rules but not their wording, so these are ours (docs/crf-format.md, Decisions). A field's own
 * validationErrorMsg replaces any of them.
 */
export const CRF_MSG = {
  requiredChoice: '请选择选项',
  requiredInput: '请输入数据',

  notInteger: '请输入整数',
  notNumber: '请输入数字',
  tooManyDecimals: (digits: number) => `最多保留${digits}位小数`,
  belowMin: (min: number) => `不能小于${min}`,
  aboveMax: (max: number) => `不能大于${max}`,
  email: '请输入正确的邮箱地址',
  phone: '请输入正确的手机号码',
  idcard: '请输入正确的身份证号码',
  tooShort: (min: number) => `长度不能少于${min}个字符`,
  tooLong: (max: number) => `长度不能超过${max}个字符`,
  pattern: '格式不正确',
  choiceInvalid: '选项不存在',
  dateInvalid: '请输入正确的日期',
  dateInFuture: '日期不能晚于今天',
  dateInPast: '日期不能早于今天',
  timeInvalid: '请输入正确的时间',
  sliderOutOfRange: (min: number, max: number) => `请选择${min}到${max}之间的值`,
} as const;
