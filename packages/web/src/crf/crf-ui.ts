import { createContext, useContext } from 'react';
import type { MessageInstance } from 'antd/es/message/interface';
import type { HookAPI } from 'antd/es/modal/useModal';

/** The form's own message and confirm holders, so the renderer works inside or outside antd's <App>. */
export interface CrfUi {
  modal: HookAPI;
  message: MessageInstance;
}

export const CrfUiContext = createContext<CrfUi | null>(null);

export function useCrfUi(): CrfUi {
  const ui = useContext(CrfUiContext);
  if (!ui) throw new Error('CRF widgets render inside <CrfForm>');
  return ui;
}

/** forms §8: removing an uploaded file asks first (title 提示, 确定/取消, warning type); cancel does nothing. */
export function confirmRemoveFile(
  ui: CrfUi,
  texts: { title: string; content: string; ok: string; cancel: string },
  onOk: () => void,
) {
  void ui.modal.warning({
    title: texts.title,
    content: texts.content,
    okText: texts.ok,
    cancelText: texts.cancel,
    okCancel: true,
    onOk,
  });
}
