import { useEffect, useRef, type RefObject } from 'react';
import { App } from 'antd';
import { useBlocker } from 'react-router';
import { CRF_PAGE_TEXT } from '../../locales/crf-page.zh-CN';

const t = CRF_PAGE_TEXT;

/**
 * Asks before unsaved changes are left behind: another page, another form or record of this page
 * (a different path or query), or closing the tab. `bypass` lets the page's own navigation after
 * a save through (the new record's id going into the address). `dirtyRef` is read at navigation
 * time, `dirty` decides whether closing the tab asks.
 */
export function useUnsavedGuard(dirty: boolean, dirtyRef: RefObject<boolean>, bypass: RefObject<boolean>) {
  const { modal } = App.useApp();

  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirtyRef.current &&
      !bypass.current &&
      (currentLocation.pathname !== nextLocation.pathname || currentLocation.search !== nextLocation.search),
  );

  const asking = useRef(false);
  useEffect(() => {
    if (blocker.state !== 'blocked' || asking.current) return;
    asking.current = true;
    modal.confirm({
      title: t.leaveTitle,
      content: t.leaveContent,
      okText: t.leaveOk,
      cancelText: t.stay,
      onOk: () => {
        asking.current = false;
        blocker.proceed();
      },
      onCancel: () => {
        asking.current = false;
        blocker.reset();
      },
    });
  }, [blocker, modal]);

  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);
}
