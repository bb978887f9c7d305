import { beforeEach, describe, expect, it } from 'vitest';
import { useSession } from './session.store';
import { clearSignOutNotice, setSignOutNotice, signOutNotice } from './sign-out-notice';

const IDLE = '长时间未操作，已自动退出，请重新登录';

describe('the sign-out notice', () => {
  beforeEach(() => {
    window.sessionStorage.clear();
  });

  it('survives the session being cleared after it was written (idle sign-out: notice, then log out)', () => {
    window.sessionStorage.setItem('edc.retrieval.1', '{"groups":[]}');
    setSignOutNotice(IDLE);
    useSession.getState().clear();
    expect(signOutNotice()).toBe(IDLE);
    // The rest of the tab's session state still goes.
    expect(window.sessionStorage.getItem('edc.retrieval.1')).toBeNull();
  });

  it('goes when cleared (the next sign-in)', () => {
    setSignOutNotice(IDLE);
    clearSignOutNotice();
    useSession.getState().clear();
    expect(signOutNotice()).toBeNull();
  });
});
