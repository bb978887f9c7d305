import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';

/** THEME-01: dates speak Chinese; antd's pickers show English weekdays until the dayjs locale is switched once at start. */
export const DAYJS_LOCALE = 'zh-cn';

export function setUpLocale(): void {
  dayjs.locale(DAYJS_LOCALE);
}
